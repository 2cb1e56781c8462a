"""GRPO for sparse, noisy speed rewards (paper, section 4). Plain Python + torch, no Django:
config.py (the documented run config), advantages.py (token-weighted group baseline, group
kinds), loss.py (clipped policy loss over a constant token budget), staleness.py."""
