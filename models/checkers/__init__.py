"""Checkers: everything that scores how well a source supports an output."""

from models.checkers.base import ArcScore, Checker, PairInput, PairScore, SentenceScore

__all__ = ["ArcScore", "Checker", "PairInput", "PairScore", "SentenceScore"]
