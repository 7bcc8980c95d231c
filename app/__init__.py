"""FactDesk: project store, import/export, analysis jobs, the command line and the window."""

__version__ = "0.1.0"
