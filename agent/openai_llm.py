"""An LLM on any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp server).

Retries with backoff on 429, 5xx and timeouts are the SDK's own
(`max_retries`); what still fails becomes one LLMError line saying what to do,
and the engine pauses the run on it instead of ending it.
"""

from __future__ import annotations

from typing import Any

from agent.llm import Completion, LLMError, StubContext, Usage
from agent.profiles import PriceTable, Profile


class OpenAILLM:
    def __init__(self, profile: Profile, prices: PriceTable | None = None) -> None:
        import openai  # lazy: ~0.3 s to import, never before the console's first paint

        self.profile = profile
        self.prices = prices or PriceTable()
        self.name = f"profile:{profile.name}"
        self._openai = openai
        self._client = openai.AsyncOpenAI(
            api_key=profile.api_key,
            base_url=profile.base_url,
            timeout=profile.timeout,
            max_retries=profile.max_retries,
        )

    async def complete(self, prompt: str, context: StubContext | None = None) -> Completion:
        openai, profile = self._openai, self.profile
        try:
            response = await self._client.chat.completions.create(
                model=profile.model,
                messages=[{"role": "user", "content": prompt}],
                temperature=profile.temperature,
                max_tokens=profile.max_tokens,
            )
        except openai.AuthenticationError:
            raise LLMError(f"{self._where()} refused the API key (401); check api_key or OPENAI_API_KEY") from None
        except openai.NotFoundError:
            raise LLMError(f"{self._where()} has no model {profile.model!r} (404); check the profile's model") from None
        except openai.RateLimitError:
            raise LLMError(
                f"{self._where()} is rate limiting (429) after {profile.max_retries} retries; wait, then retry"
            ) from None
        except openai.APITimeoutError:
            raise LLMError(
                f"{self._where()} gave no answer within {profile.timeout:g} s ({profile.max_retries} retries); "
                "retry or raise the profile's timeout"
            ) from None
        except openai.APIConnectionError:
            raise LLMError(f"cannot connect to {self._where()}; is the server running?") from None
        except openai.APIStatusError as exc:
            raise LLMError(
                f"{self._where()} answered HTTP {exc.status_code} after {profile.max_retries} retries; retry later"
            ) from None
        except (openai.APIResponseValidationError, ValueError) as exc:
            raise LLMError(f"{self._where()} sent a malformed response ({type(exc).__name__}); check base_url") from None
        return self._completion(response)

    def _completion(self, response: Any) -> Completion:
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise LLMError(f"{self._where()} returned no choices; retry or check the server")
        choice = choices[0]
        text = (choice.message.content or "") if choice.message else ""
        usage_data = getattr(response, "usage", None)
        usage = Usage(
            getattr(usage_data, "prompt_tokens", 0) or 0, getattr(usage_data, "completion_tokens", 0) or 0
        )
        if not text.strip():
            raise LLMError(f"{self._where()} returned an empty answer; retry, or type the answer yourself")
        if choice.finish_reason == "length" and "</execute>" not in text:
            raise LLMError(
                f"the answer was cut at max_tokens={self.profile.max_tokens} before </execute>; "
                "raise max_tokens in the profile and retry"
            )
        model = self.profile.model
        if self.prices.price(model) is None:
            model = getattr(response, "model", None) or model  # a server may report a dated name
        cost = self.prices.cost(model, usage.input_tokens, usage.output_tokens)
        return Completion(text=text, usage=usage, cost=cost, source="model")

    def _where(self) -> str:
        return f"{self.profile.base_url or 'api.openai.com'} (profile {self.profile.name})"
