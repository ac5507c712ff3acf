import { LiveLog } from '../live-log.js';

export type Explanation = { summary: string; likelyCause: string; suggestedFix: string; commands: string[] };

/** The chosen deployment's log as it is written, after why it failed when that was asked. */
export function DeploymentLog({ watching, explanation, isOver }: { watching: string | null; explanation: Explanation | null; isOver: () => Promise<boolean> }) {
  return (
    <>
      {explanation && (
        <aside class="explanation" aria-label="Why it failed">
          <p>
            <strong>{explanation.summary}</strong>
          </p>
          <p>{explanation.likelyCause}</p>
          <p>{explanation.suggestedFix}</p>
          <pre>{explanation.commands.join('\n')}</pre>
        </aside>
      )}
      {watching && <LiveLog url={`/api/deployments/${watching}/stream`} label="Deployment log" isOver={isOver} />}
    </>
  );
}
