"""Audits of a project: entity familiarity and the HTML audit report."""
