"""Reviewers together: agreement figures and final labels (adjudicated, else agreed)."""
