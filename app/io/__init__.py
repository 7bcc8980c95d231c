"""Import and export of pairs, analysis results and judgments."""
