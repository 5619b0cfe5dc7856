"""Model backends behind one interface, and how users name them (``PROVIDER:MODEL`` specs).

Backends live in their own modules and are imported only when a spec asks for them, so that choosing an
OpenAI model never imports llama.cpp.
"""

from wason.models.base import (
    ChatMessage,
    GenerationParams,
    Model,
    ModelConfigError,
    ModelError,
    ModelResponse,
)
from wason.models.spec import DEFAULT_MODEL, describe_providers, load_model

# ModelClient (retries, cache, recording) from wason.models.client is re-exported here too:
# add its import above and its name to __all__ below.

__all__ = [
    "DEFAULT_MODEL",
    "ChatMessage",
    "GenerationParams",
    "Model",
    "ModelConfigError",
    "ModelError",
    "ModelResponse",
    "describe_providers",
    "load_model",
]
