"""The Qt window. Imported only by the GUI entry point, so the CLI and the core stay Qt-free."""
