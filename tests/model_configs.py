"""Published Hugging Face ``config.json`` dicts (the keys the planner reads), shared by the tests that load them."""

from __future__ import annotations

# google/gemma-3-27b-it's text_config: a 1024-token sliding window on 5 of every 6 layers (62 - 62 // 6 = 52 layers)
GEMMA_3_27B = {
    "model_type": "gemma3_text", "hidden_size": 5376, "intermediate_size": 21504, "num_hidden_layers": 62,
    "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 128, "vocab_size": 262208,
    "max_position_embeddings": 131072, "sliding_window": 1024, "sliding_window_pattern": 6,
}  # fmt: skip
# openai/gpt-oss-120b's config.json (without its layer_types: transformers' GptOssConfig alternates them)
GPT_OSS_120B = {
    "model_type": "gpt_oss", "hidden_size": 2880, "intermediate_size": 2880, "num_hidden_layers": 36,
    "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64, "num_local_experts": 128,
    "num_experts_per_tok": 4, "vocab_size": 201088, "max_position_embeddings": 131072, "sliding_window": 128,
    "attention_bias": True, "tie_word_embeddings": False, "hidden_act": "silu",
}  # fmt: skip
