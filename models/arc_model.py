"""The multi-task arc-entailment / sentence-support model, in torch.

One encoder reads ``[CLS] evidence [SEP] output sentence [SEP]``. The arc head is the DAE
paper's: for each arc, [state of the head word's first word-piece; state of the child word's
first word-piece; a learned label embedding] -> linear -> (not entailed, entailed). The support
head is a linear layer on the [CLS] state -> (not supported, supported). One forward pass gives
both. torch and transformers are imported only inside functions: the app loads this module only
when the torch runtime is asked for.

A *trainer directory* holds ``config.json`` (kind ``factdesk-arc-support``, encoder config,
label vocabulary, max length, version), ``tokenizer.json`` and ``model.pt`` (torch state dict)
and/or ``model.onnx`` (exported, possibly int8).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from models.errors import ModelLoadError, ModelNotFoundError

KIND = "factdesk-arc-support"
CONFIG_FILE = "config.json"
TORCH_FILE = "model.pt"
ONNX_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
INPUT_NAMES = (
    "input_ids",
    "attention_mask",
    "token_type_ids",
    "arc_head",
    "arc_child",
    "arc_label",
)
OUTPUT_NAMES = ("arc_prob", "support_prob")


def read_config(model_dir: str | Path) -> dict[str, Any]:
    """Read and check a trainer directory's config.

    Raises:
        ModelNotFoundError: no config.json.
        ModelLoadError: a config that is not ours.
    """
    path = Path(model_dir) / CONFIG_FILE
    if not path.is_file():
        raise ModelNotFoundError(f"{path.parent}: not a model directory (no {CONFIG_FILE}).")
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"{path}: unreadable config: {exc}") from exc
    if config.get("kind") != KIND:
        raise ModelLoadError(f"{path}: not a FactDesk arc model (kind {config.get('kind')!r}).")
    return config


def build_encoder(encoder_config: dict[str, Any]) -> Any:
    """A randomly initialised encoder from a saved config: BERT (MiniLM) or MPNet.

    ``model_type`` names the architecture; configs written before it was recorded are BERT.

    Raises:
        ModelLoadError: an architecture this model does not support.
    """
    config = dict(encoder_config)
    model_type = config.pop("model_type", "bert")
    if model_type == "bert":
        from transformers import BertConfig, BertModel

        return BertModel(BertConfig(**config), add_pooling_layer=False)
    if model_type == "mpnet":
        from transformers import MPNetConfig, MPNetModel

        return MPNetModel(MPNetConfig(**config), add_pooling_layer=False)
    raise ModelLoadError(
        f"encoder model_type {model_type!r} is not supported (expected 'bert' or 'mpnet')."
    )


def uses_token_types(encoder: Any) -> bool:
    """Whether the encoder reads segment ids (BERT does; MPNet has no token-type embedding)."""
    return hasattr(encoder.embeddings, "token_type_embeddings")


def build_module(
    encoder_config: dict[str, Any], n_labels: int, label_dim: int, encoder: Any = None
) -> Any:
    """The torch module; ``encoder`` (BertModel or MPNetModel) is built from config when None.

    The module always takes the six inputs of :data:`INPUT_NAMES`, so one runtime feeds every
    exported model; an encoder without token types ignores ``token_type_ids``.
    """
    import torch
    from torch import nn

    if encoder is None:
        encoder = build_encoder(encoder_config)
    token_types = uses_token_types(encoder)

    class ArcSupportModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder
            hidden = encoder.config.hidden_size
            self.label_embedding = nn.Embedding(n_labels, label_dim)
            self.dropout = nn.Dropout(0.1)
            self.arc_out = nn.Linear(2 * hidden + label_dim, 2)
            self.support_out = nn.Linear(hidden, 2)

        def logits(
            self,
            input_ids: Any,
            attention_mask: Any,
            token_type_ids: Any,
            arc_head: Any,
            arc_child: Any,
            arc_label: Any,
        ) -> tuple[Any, Any]:
            if token_types:
                states = self.encoder(
                    input_ids=input_ids,
                    attention_mask=attention_mask,
                    token_type_ids=token_type_ids,
                ).last_hidden_state
            else:
                states = self.encoder(
                    input_ids=input_ids, attention_mask=attention_mask
                ).last_hidden_state
            hidden = states.shape[-1]
            head = torch.gather(states, 1, arc_head.unsqueeze(-1).expand(-1, -1, hidden))
            child = torch.gather(states, 1, arc_child.unsqueeze(-1).expand(-1, -1, hidden))
            feats = torch.cat([head, child, self.label_embedding(arc_label)], dim=-1)
            arc_logits = self.arc_out(self.dropout(feats))
            support_logits = self.support_out(self.dropout(states[:, 0]))
            return arc_logits, support_logits

        def forward(
            self,
            input_ids: Any,
            attention_mask: Any,
            token_type_ids: Any,
            arc_head: Any,
            arc_child: Any,
            arc_label: Any,
        ) -> tuple[Any, Any]:
            arc_logits, support_logits = self.logits(
                input_ids, attention_mask, token_type_ids, arc_head, arc_child, arc_label
            )
            return (
                torch.softmax(arc_logits, -1)[..., 1],
                torch.softmax(support_logits, -1)[..., 1],
            )

    return ArcSupportModel()


def load_torch(model_dir: str | Path, device: str = "cpu") -> tuple[Any, dict[str, Any]]:
    """Load a trainer directory's torch weights (no base-encoder package needed).

    Raises:
        ModelNotFoundError: no ``model.pt`` there.
        ModelLoadError: weights that do not fit the config.
    """
    import torch

    config = read_config(model_dir)
    weights = Path(model_dir) / TORCH_FILE
    if not weights.is_file():
        raise ModelNotFoundError(f"{model_dir}: no {TORCH_FILE} (torch weights) in this directory.")
    module = build_module(config["encoder"], len(config["labels"]) + 2, config["label_dim"])
    try:
        state = torch.load(weights, map_location="cpu", weights_only=True)
        module.load_state_dict(state)
    except (RuntimeError, OSError) as exc:
        raise ModelLoadError(f"{weights}: weights do not fit the config: {exc}") from exc
    return module.to(device).eval(), config
