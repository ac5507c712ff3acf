import { z } from 'zod';
import { appendPath } from '../../outbound/base-url.js';
import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { AiProviderError } from './explanation.js';
import { callProvider, DEFAULT_TIMEOUT_MS, type ChatProvider } from './explainer.js';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
const API_VERSION = '2023-06-01';
const MAX_TOKENS = 1024;

export interface AnthropicSettings {
  baseUrl?: string | null;
  apiKey?: string | null;
  defaultModel?: string | null;
  timeoutMs?: number;
  outbound: DestinationPolicy;
}

const message = z.object({ content: z.array(z.object({ type: z.string(), text: z.string().optional() })) });
const modelList = z.object({ data: z.array(z.object({ id: z.string() })) });

/** The Anthropic Messages API. */
export function anthropicClient(settings: AnthropicSettings): ChatProvider & { verify(): Promise<string[]> } {
  const baseUrl = (settings.baseUrl || ANTHROPIC_BASE_URL).replace(/\/+$/, '');
  const apiKey = settings.apiKey || null;
  const options = { timeoutMs: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS, secret: apiKey, outbound: settings.outbound };
  const headers = () => {
    if (!apiKey) throw new AiProviderError('an API key is required for the Anthropic API', 'refused');
    return { 'x-api-key': apiKey, 'anthropic-version': API_VERSION, 'content-type': 'application/json' };
  };

  return {
    defaultModel: settings.defaultModel || null,

    async ask(prompt, model) {
      const body = await callProvider(
        {
          method: 'POST',
          url: appendPath(baseUrl, 'v1/messages'),
          headers: headers(),
          body: { model, max_tokens: MAX_TOKENS, system: prompt.system, messages: [{ role: 'user', content: prompt.user }] },
        },
        options,
      );
      const parsed = message.safeParse(body);
      if (!parsed.success) throw new AiProviderError(`${baseUrl}/v1/messages answered without content blocks`, 'malformed');
      return parsed.data.content
        .filter((block) => block.type === 'text')
        .map((block) => block.text ?? '')
        .join('');
    },

    async verify() {
      // The default page holds 20 models; 1000 is the largest the API allows.
      const answer = await callProvider({ method: 'GET', url: appendPath(baseUrl, 'v1/models?limit=1000'), headers: headers() }, options);
      const parsed = modelList.safeParse(answer);
      if (!parsed.success) throw new AiProviderError(`${baseUrl}/v1/models answered without a list of models (data[].id)`, 'malformed');
      return parsed.data.data.map((m) => m.id);
    },
  };
}
