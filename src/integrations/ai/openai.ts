import { z } from 'zod';
import { appendPath } from '../../outbound/base-url.js';
import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { AiProviderError } from './explanation.js';
import { callProvider, DEFAULT_TIMEOUT_MS, type ChatProvider } from './explainer.js';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAiSettings {
  baseUrl?: string | null;
  /** Sent as a bearer token only when set: local servers (Ollama, vLLM, LM Studio) often need none. */
  apiKey?: string | null;
  defaultModel?: string | null;
  timeoutMs?: number;
  outbound: DestinationPolicy;
}

const completion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
});
const modelList = z.object({ data: z.array(z.object({ id: z.string() })) });

/** Any OpenAI-compatible chat-completions endpoint. */
export function openAiClient(settings: OpenAiSettings): ChatProvider & { verify(): Promise<string[]> } {
  const baseUrl = (settings.baseUrl || OPENAI_BASE_URL).replace(/\/+$/, '');
  const apiKey = settings.apiKey || null;
  const options = { timeoutMs: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS, secret: apiKey, outbound: settings.outbound };
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };

  return {
    defaultModel: settings.defaultModel || null,

    async ask(prompt, model) {
      const body = await callProvider(
        {
          method: 'POST',
          url: appendPath(baseUrl, 'chat/completions'),
          headers,
          body: {
            model,
            messages: [
              { role: 'system', content: prompt.system },
              { role: 'user', content: prompt.user },
            ],
            temperature: 0,
            response_format: { type: 'json_object' },
          },
        },
        options,
      );
      const parsed = completion.safeParse(body);
      if (!parsed.success) throw new AiProviderError(`${baseUrl}/chat/completions answered without choices[0].message`, 'malformed');
      // A refusal comes with a null content: it is then an answer without an explanation, retried like one.
      return parsed.data.choices[0]!.message.content ?? '';
    },

    async verify() {
      const parsed = modelList.safeParse(await callProvider({ method: 'GET', url: appendPath(baseUrl, 'models'), headers }, options));
      if (!parsed.success) throw new AiProviderError(`${baseUrl}/models answered without a list of models (data[].id)`, 'malformed');
      return parsed.data.data.map((m) => m.id);
    },
  };
}
