"""The models a server may call, each bound at start to the one endpoint and key its operator configured.

A configuration that arrives over HTTP (the sessions API, the play and watch pages) may name only these models
in any of its model fields (the player's, a judge's, a labeller's, a game master's: every field marked
:class:`~wason.core.family.ModelRef`), and may name no base URL but the one configured for that model: anything
else is refused with the field named, before anything is stored or sent. The server's keys therefore go only to
the addresses they were configured with (``wason serve --model SPEC [--base-url URL]``, the URL and key read
from the flags and the provider's environment variables once, at start). The embedded model is always allowed;
it has no endpoint and no key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from wason.core.family import RunSettings, endpoint_fields, model_fields
from wason.core.family import own_fields as family_own_fields
from wason.models.base import ModelConfigError
from wason.models.spec import Endpoint, parse_spec, resolve_endpoint

EMBEDDED = "local:smollm2-135m"
"""The embedded model's spec, always allowed."""

NO_KEY = "EMPTY"
"""What a keyless OpenAI-compatible endpoint is sent (the SDK must send some bearer token)."""

MAX_ALLOWED = 100
"""Models one server may allow."""


class Refused(ValueError):
    """A field of a configuration that arrived over HTTP that this server refuses; one line naming ``field``."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


class ModelNotAllowed(Refused):
    """A configuration names a model, or an address for one, that the server does not allow."""


class OverServedBound(Refused):
    """A field of a game or run asked for over HTTP is above the bound the server keeps for it
    (``RunSettings.served_bounds``)."""


def _within_served_bounds(config_type: type[BaseModel], fields: Mapping[str, Any], prefix: str) -> None:
    """Refuse a field of ``fields`` above its family's bound for requests (``RunSettings.served_bounds``): what a
    request may ask the server to draw is smaller than what the command line may (a value that is no whole
    number is left to the configuration's own check).

    Raises:
        OverServedBound: naming the field (with ``prefix``) and its bound here.
    """
    bounds: Mapping[str, int] = getattr(config_type, "served_bounds", {})
    for name, most in bounds.items():
        value = fields.get(name)
        if isinstance(value, bool) or value is None:
            continue
        try:
            number = int(value)
        except (TypeError, ValueError, OverflowError):
            continue
        if number > most:
            raise OverServedBound(
                f"{prefix}{name}: at most {most} here (the command line takes more: `wason eval ... --{name} N`)",
                prefix + name,
            )


def normalised(spec: str) -> str:
    """``spec`` as the allow-list compares it (``provider:model``, the provider lower-cased).

    Raises:
        ModelConfigError: not a model spec.
    """
    provider, model = parse_spec(spec)
    if provider == "local" and model.lower() == EMBEDDED.split(":", 1)[1]:
        return EMBEDDED
    return f"{provider}:{model}"


def _same_url(a: str | None, b: str | None) -> bool:
    return (a or "").strip().rstrip("/").lower() == (b or "").strip().rstrip("/").lower()


class AllowedModels:
    """The models a server allows, each with the endpoint and key it was configured with.

    Build it with :meth:`configure` at start. The same spec may be allowed at several endpoints; a request then
    picks one by its base URL (the first when it names none).
    """

    def __init__(self, endpoints: Sequence[Endpoint] = ()) -> None:
        self.endpoints = [Endpoint(spec=EMBEDDED, base_url=None), *endpoints]

    @classmethod
    def configure(cls, given: Sequence[tuple[str, str | None]]) -> AllowedModels:
        """The allow-list of ``(spec, base_url)`` pairs, each resolved now: its URL (the one given, else the
        provider's environment variable, else its default) and its key (the provider's key variable).

        Raises:
            ModelConfigError: a spec that is not valid, a base URL that is not http(s), a key the provider
                requires that is not set, or more than :data:`MAX_ALLOWED` models; one line.
        """
        if len(given) > MAX_ALLOWED:
            raise ModelConfigError(f"--model: at most {MAX_ALLOWED} models, got {len(given)}")
        endpoints: list[Endpoint] = []
        for spec, base_url in given:
            if base_url is not None and not base_url.strip().lower().startswith(("http://", "https://")):
                raise ModelConfigError(f"--base-url {base_url[:200]!r}: an http:// or https:// address")
            try:
                found = resolve_endpoint(spec, base_url=base_url, key_hint=" (its key is read at start)")
            except ModelConfigError as exc:
                raise ModelConfigError(f"--model {spec[:200]}: {exc}") from None
            if found.spec.startswith("local:") and found.spec != EMBEDDED:
                # a model file the operator named: allowed, as it is, with no endpoint
                found = Endpoint(spec=found.spec, base_url=None)
            if not any(e.spec == found.spec and _same_url(e.base_url, found.base_url) for e in endpoints):
                endpoints.append(found)
        return cls(endpoints)

    def specs(self) -> list[str]:
        """The allowed specs, each once, the embedded model first."""
        out: list[str] = []
        for e in self.endpoints:
            if e.spec not in out:
                out.append(e.spec)
        return out

    def find(self, spec: str, base_url: str | None, *, field: str, endpoint_field: str | None) -> Endpoint:
        """The allowed endpoint of ``spec`` (at ``base_url`` when one is given).

        Raises:
            ModelNotAllowed: the spec is not a model spec or not allowed (naming ``field``), or ``base_url`` is
                not where the server sends it (naming ``endpoint_field``).
        """
        try:
            wanted = normalised(spec)
        except ModelConfigError as exc:
            raise ModelNotAllowed(f"{field}: {exc}", field) from None
        candidates = [e for e in self.endpoints if e.spec == wanted]
        if not candidates:
            raise ModelNotAllowed(
                f"{field}: {spec[:200]!r} is not a model this server allows (it allows: {', '.join(self.specs())}; "
                "its operator adds one with wason serve --model SPEC [--base-url URL])",
                field,
            )
        if base_url is None or not base_url.strip():
            return candidates[0]
        for e in candidates:
            if e.base_url is not None and _same_url(e.base_url, base_url):
                return e
        where = endpoint_field or field
        raise ModelNotAllowed(
            f"{where}: this server sends {wanted} only to the address its operator configured; leave {where} out",
            where,
        )

    def key_for(self, spec: str, base_url: str | None) -> str | None:
        """The key to send to ``spec`` at ``base_url``: the one configured with that endpoint (a placeholder for
        a keyless server; None for a local model).

        Raises:
            ModelNotAllowed: the pair is not allowed (a configuration that skipped :meth:`check`).
        """
        found = self.find(spec, base_url, field="model", endpoint_field="base_url")
        if found.base_url is None:
            return None
        return found.api_key or NO_KEY

    def check(
        self, config_type: type[BaseModel], fields: Mapping[str, Any], *, prefix: str = ""
    ) -> dict[str, Any]:
        """``fields`` of a ``config_type`` that arrived over HTTP, within the bounds the server keeps for requests
        (``RunSettings.served_bounds``), with each model field checked against the allow-list and its endpoint
        field set to the configured address (so nothing else decides where a request goes). ``prefix`` is put
        before field names in messages (``config.``).

        Raises:
            OverServedBound: a field is above the server's bound for it; naming the field.
            ModelNotAllowed: a model field names a model not allowed, an endpoint field another address, or an
                endpoint field is given without its model; naming the field.
        """
        _within_served_bounds(config_type, fields, prefix)
        out = dict(fields)
        models = model_fields(config_type)
        for name, model in endpoint_fields(config_type).items():
            value = out.get(name)
            if value not in (None, "") and not out.get(model):
                raise ModelNotAllowed(
                    f"{prefix}{name}: an address is only taken with {prefix}{model}, from this server's list; leave "
                    "it out",
                    prefix + name,
                )
        for name, endpoint in models.items():
            spec = out.get(name)
            if spec is None or spec == "":
                continue
            if not isinstance(spec, str):
                raise ModelNotAllowed(f"{prefix}{name}: a model spec PROVIDER:MODEL", prefix + name)
            given_url = out.get(endpoint) if endpoint is not None else None
            if given_url is not None and not isinstance(given_url, str):
                raise ModelNotAllowed(f"{prefix}{endpoint}: an address", f"{prefix}{endpoint}")
            found = self.find(
                spec,
                given_url,
                field=prefix + name,
                endpoint_field=prefix + endpoint if endpoint is not None else None,
            )
            out[name] = found.spec
            if endpoint is not None:
                out[endpoint] = found.base_url
            elif (
                found.base_url is not None
            ):  # a field with no endpoint of its own reaches only default addresses
                raise ModelNotAllowed(f"{prefix}{name}: {found.spec} cannot be named here", prefix + name)
        return out


def allowed_models(app: Any) -> AllowedModels:
    """The models ``app`` may call for configurations it receives (the embedded model alone by default)."""
    found = getattr(app.state, "models", None)
    return found if isinstance(found, AllowedModels) else AllowedModels()


# -- what a client may set ---------------------------------------------------------------------------------
FILE_METAVARS = frozenset({"FILE", "PATH", "DIR", "DIRECTORY"})
FILE_SUFFIXES = ("_file", "_path", "_dir", "_directory")


def names_a_file(config_type: type[RunSettings], name: str) -> bool:
    """Whether a configuration field names a file or directory on this machine (a rules file): by its name or
    its command-line metavar. A client over HTTP may not make the server read its files."""
    metavar = config_type.flag_metavars.get(name, "")
    return name.endswith(FILE_SUFFIXES) or name in ("file", "path") or metavar.upper() in FILE_METAVARS


def own_fields(config_type: type[RunSettings]) -> list[str]:
    """The fields of a family's configuration a client may set: not the model or run settings, and none that
    names a file on the server."""
    return [n for n in family_own_fields(config_type) if not names_a_file(config_type, n)]


__all__ = [
    "EMBEDDED",
    "FILE_METAVARS",
    "FILE_SUFFIXES",
    "NO_KEY",
    "AllowedModels",
    "ModelNotAllowed",
    "OverServedBound",
    "Refused",
    "allowed_models",
    "names_a_file",
    "normalised",
    "own_fields",
]
