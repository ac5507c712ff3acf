import { z } from 'zod';
import { baseUrl } from '../../outbound/base-url.js';
import type { DestinationPolicy } from '../../outbound/destination-policy.js';
import { anthropicClient } from './anthropic.js';
import { builtinExplainer } from './builtin.js';
import { chatExplainer, DEFAULT_TIMEOUT_MS, type FailureExplainer } from './explainer.js';
import { openAiClient } from './openai.js';

export const AI_PROVIDERS = {
  openai: { name: 'OpenAI-compatible (OpenAI, Ollama, vLLM, LM Studio)' },
  anthropic: { name: 'Anthropic' },
  builtin: { name: 'Built-in rules (offline)' },
} as const;
export type AiProviderId = keyof typeof AI_PROVIDERS;

export const aiConnectBody = z
  .object({
    baseUrl: baseUrl.optional(),
    apiKey: z.string().min(1).max(4096).optional(),
    defaultModel: z.string().trim().min(1).max(200).optional(),
  })
  .strict();
export type AiConnectBody = z.infer<typeof aiConnectBody>;

export interface AiProviderSettings {
  baseUrl?: string | null;
  apiKey?: string | null;
  defaultModel?: string | null;
}

export interface AiCallOptions {
  /** Deadline of each request to the provider. */
  timeoutMs?: number;
  /** Where the provider's API may be reached. */
  outbound: DestinationPolicy;
}

const clientOf = (id: Exclude<AiProviderId, 'builtin'>, settings: AiProviderSettings, { timeoutMs = DEFAULT_TIMEOUT_MS, outbound }: AiCallOptions) =>
  id === 'openai' ? openAiClient({ ...settings, timeoutMs, outbound }) : anthropicClient({ ...settings, timeoutMs, outbound });

export function openExplainer(id: AiProviderId, settings: AiProviderSettings, options: AiCallOptions): FailureExplainer {
  return id === 'builtin' ? builtinExplainer() : chatExplainer(clientOf(id, settings, options));
}

/** The ids of the models the provider offers with these settings; an AiProviderError when it refuses them. */
export async function verifyAiProvider(id: AiProviderId, settings: AiProviderSettings, options: AiCallOptions): Promise<string[]> {
  if (id === 'builtin') return ['builtin'];
  return clientOf(id, settings, options).verify();
}
