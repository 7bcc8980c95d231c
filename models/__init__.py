"""Language analysis and checkers for FactDesk.

This package never imports Qt or ``app``; torch and transformers are imported lazily so that
the window starts without them.
"""
