"""An implementation of your own for ``symrope audit --impl docs/examples/my_rope.py:table``."""

import numpy as np


def table(positions):
    """Llama 3.1's frequencies rounded to fp16, angle and cos/sin in float32."""
    from symrope.schedules import inv_freq, llama31_8b
    omega = inv_freq(llama31_8b(), "float32").astype(np.float16).astype(np.float32)
    angle = positions.astype(np.float32)[:, None] * omega[None, :]
    return np.cos(angle), np.sin(angle)
