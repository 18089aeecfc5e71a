"""An LLM on any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server).

Retries with backoff on 429, 5xx and timeouts are the SDK's own
(`max_retries`); what still fails becomes one LLMError line saying what to do,
and the agent pauses the run on it instead of ending it.

The profile's `timeout` is one deadline for the whole call: every attempt and
the SDK's backoff between them, each answer's body included (the HTTP library's
own timeout is per read, so a server that sends a byte every few seconds would
otherwise hold the run forever). A call that misses it is given up for good
(`LLMError.retry` is False): on a one-slot local server the request it abandoned
still holds the slot, so asking again would only queue behind it. The reply is
read and its shape checked here, in `reply_parts`, never trusted to the SDK's
unvalidated objects: whatever a server sends back is an LLMError, never a crash. An empty
answer is not an error: it is the model's, billed, and the agent refuses it with its reason.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import ssl
import threading
from typing import Any, AsyncContextManager, Callable

from agent.llm import CallContext, Completion, LLMError, Usage
from agent.llm.profiles import PriceTable, Profile

CallGate = Callable[[Profile], AsyncContextManager[None]]


class _LocalGates:
    """One semaphore per profile name and event loop: the cap of one process's evaluation."""

    def __init__(self) -> None:
        self._gates: dict[tuple[str, int], asyncio.Semaphore] = {}

    def __call__(self, profile: Profile) -> AsyncContextManager[None]:
        key = (profile.name, id(asyncio.get_running_loop()))
        if key not in self._gates:
            self._gates[key] = asyncio.Semaphore(profile.max_concurrency)
        return self._gates[key]


_gate: CallGate = _LocalGates()


def set_call_gate(gate: CallGate | None) -> None:
    """Where a profile's `max_concurrency` is counted: this process (None, the default) or wider
    (eval --ray installs a gate shared by every worker of the cluster)."""
    global _gate
    _gate = gate or _LocalGates()


@functools.lru_cache(maxsize=None)
def _tls_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    """The TLS context the HTTP library would build (its CA bundle, or the `SSL_CERT_FILE`/`SSL_CERT_DIR`
    given, the key here), built once per process: loading the CA bundle is ~20 ms of CPU, and the console
    and eval make a client for every model they switch to or compare."""
    import httpx

    return httpx.create_ssl_context()


class _Connection:
    """The SDK's client for one profile, made at the first call. Why not at once: importing `openai` costs
    ~0.3-0.7 CPU-s that a process which only plans never spends (eval's driver on a Ray cluster, where the
    workers call the model; a check of the model setting). `with_seed`'s copies share it: one connection pool."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self._client: Any = None
        self._making = threading.Lock()  # two first calls at once make one client

    async def client(self) -> Any:
        """The client; made in a thread the first time: the SDK's import must not hold up the event loop that
        awaits the call (the console's frames)."""
        if self._client is None:
            await asyncio.to_thread(self._make)
        return self._client

    def _make(self) -> None:
        with self._making:
            if self._client is not None:
                return
            import openai

            profile = self.profile
            http_client = openai.DefaultAsyncHttpxClient(timeout=profile.timeout, verify=_tls_context(
                os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")))
            self._client = openai.AsyncOpenAI(
                api_key=profile.api_key,
                base_url=profile.base_url,
                timeout=profile.timeout,
                max_retries=profile.max_retries,
                http_client=http_client,
            )


class OpenAILLM:
    def __init__(self, profile: Profile, prices: PriceTable | None = None) -> None:
        self.profile = profile
        self.seed: int | None = None  # sent with every request when set (eval --repeat: each repeat its own)
        self.prices = prices or PriceTable()
        self.name = f"profile:{profile.name}"
        self._connection = _Connection(profile)

    def request(self, prompt: str) -> dict[str, Any]:
        """The chat request sent for `prompt`: the model, its parameters and the exact messages
        (the response cache keys on it, so what is sent and what is keyed cannot drift apart)."""
        profile = self.profile
        request: dict[str, Any] = {
            "model": profile.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": profile.temperature,
            "max_tokens": profile.max_tokens,
        }
        if profile.stop:
            request["stop"] = list(profile.stop)
        if self.seed is not None:
            request["seed"] = self.seed
        return request

    def with_seed(self, seed: int) -> "OpenAILLM":
        """The same model and connection, its requests carrying `seed` (OpenAI's reproducible sampling)."""
        import copy

        seeded = copy.copy(self)
        seeded.seed = seed
        return seeded

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        profile = self.profile
        if profile.max_concurrency:
            async with _gate(profile):  # the profile's cap on calls in flight
                return await self._complete(prompt)
        return await self._complete(prompt)

    async def _complete(self, prompt: str) -> Completion:
        client = await self._connection.client()
        import openai  # for its errors (imported by the client's making)

        profile = self.profile
        try:
            create = client.chat.completions.with_raw_response.create(**self.request(prompt))
            raw = await asyncio.wait_for(create, profile.timeout)  # one deadline, every retry within it
        except asyncio.TimeoutError:
            raise self._missed_deadline() from None
        except openai.AuthenticationError:
            raise LLMError(f"{self._where()} refused the API key (401); check api_key or OPENAI_API_KEY") from None
        except openai.NotFoundError:
            raise LLMError(f"{self._where()} has no model {profile.model!r} (404); check the profile's model") from None
        except openai.RateLimitError:
            raise LLMError(
                f"{self._where()} is rate limiting (429) after {profile.max_retries} retries; wait, then retry"
            ) from None
        except openai.APITimeoutError:
            raise self._missed_deadline() from None
        except openai.APIConnectionError:
            raise LLMError(f"cannot connect to {self._where()}; is the server running?") from None
        except openai.APIStatusError as exc:
            if exc.status_code >= 500:  # the SDK retried it
                raise LLMError(
                    f"{self._where()} answered HTTP {exc.status_code} after {profile.max_retries} retries; retry later"
                ) from None
            raise LLMError(
                f"{self._where()} refused the request (HTTP {exc.status_code}){_said(exc.body)}; "
                "check the profile's model, max_tokens and the server's log"
            ) from None
        except (openai.APIResponseValidationError, ValueError) as exc:
            raise LLMError(f"{self._where()} sent a malformed response ({type(exc).__name__}); check base_url") from None
        return self._completion(raw.http_response)

    def _completion(self, http_response: Any) -> Completion:
        text, finish, usage, model = reply_parts(
            http_response.headers.get("content-type", ""), http_response.content, self._where()
        )
        cut_at = self.profile.max_tokens if finish == "length" else None
        if self.prices.price(self.profile.model) is not None or not model:
            model = self.profile.model  # else the name the server reports: it may be a dated one
        cost = self.prices.cost(model, usage.input_tokens, usage.output_tokens)
        # An answer cut at max_tokens, or an empty one (the model ended at once, or a `stop` matched its
        # start), is the model's answer (asked again, it comes again): the agent judges it, its usage counts.
        return Completion(text=text, usage=usage, cost=cost, source="model", cut_at=cut_at)

    def _missed_deadline(self) -> LLMError:
        profile = self.profile
        return LLMError(
            f"{self._where()} gave no answer within {profile.timeout:g} s (one deadline over the call and its "
            f"{profile.max_retries} retries); retry, raise the profile's timeout, or bound the answer with max_tokens",
            retry=False,
        )

    def _where(self) -> str:
        return f"{self.profile.base_url or 'api.openai.com'} (profile {self.profile.name})"


def reply_parts(content_type: str, body: bytes, where: str) -> tuple[str, str, Usage, str]:
    """The answer text, finish reason, usage and model name of a chat completion reply.

    The one place a reply's shape is checked: anything else (an HTML page, a
    choice that is not an object, a usage that is not numbers) is an LLMError
    saying what came back, so the run pauses instead of ending on a crash.
    """
    kind = content_type.split(";", 1)[0].strip() or "no content type"
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        if kind.endswith("json"):
            raise LLMError(f"{where} sent a malformed response (broken JSON); check base_url") from None
        raise LLMError(
            f"{where} returned a non-JSON answer ({kind}, {len(body)} bytes), not a chat completion; "
            "check base_url (it usually ends with /v1)"
        ) from None
    if not isinstance(data, dict):
        raise LLMError(f"{where} returned JSON that is not a chat completion object; check base_url")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise LLMError(f"{where} returned no choices; retry or check the server")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise LLMError(f"{where} returned a choice without a message object; retry or check the server")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise LLMError(f"{where} returned a message whose content is not text; retry or check the server")
    finish = choice.get("finish_reason")
    raw_usage = data.get("usage")
    usage = Usage()
    if isinstance(raw_usage, dict):
        usage = Usage(_count(raw_usage.get("prompt_tokens")), _count(raw_usage.get("completion_tokens")))
    model = data.get("model")
    return content or "", finish if isinstance(finish, str) else "", usage, model if isinstance(model, str) else ""


def _said(body: object) -> str:
    """The server's own error message, as `: message` (one line, cut), or '' when it sent none."""
    message = body.get("message") if isinstance(body, dict) else body if isinstance(body, str) else None
    if not isinstance(message, str) or not message.strip():
        return ""
    line = " ".join(message.split())
    return f": {line if len(line) <= 200 else line[:197] + '...'}"


def _count(value: object) -> int:
    """A token count as sent, or 0 when the server sent something else (usage is informative, not vital)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
