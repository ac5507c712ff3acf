import { find, isOwnLine, lastStage, quote } from './log-lines.js';
import { patchService, runLocally } from './commands.js';
import type { BuiltinRule } from './rule.js';

// "Listening on port 3000", "Uvicorn running on http://127.0.0.1:8000", "listening on :8080"; a bare colon only after a space (not 12:30:45).
const LISTENING =
  /\b(?:listening|running|started|serving|server|ready|bound|local)\b.*?(?:\bport\b\s*:?\s*(?<port>\d{2,5})\b|(?:(?:https?:\/\/)?(?<host>0\.0\.0\.0|127\.0\.0\.1|localhost|\[::1?\]|\*)|\s):(?<hostPort>\d{2,5})\b)/i;
const LOOPBACK = /^(127\.0\.0\.1|\[::1\])$/;

export const portNotOpened: BuiltinRule = {
  id: 'port-not-opened',
  explain(input) {
    const m = input.reason.match(/the app did not answer HTTP on port (\d+) within (\d+) s/);
    if (!m) return null;
    const port = input.context.service.internalPort;
    const seconds = m[2]!;
    const heard = find(lastStage(input.lines).filter((l) => !isOwnLine(l)), LISTENING);
    const heardPort = heard ? Number(heard.groups?.port ?? heard.groups?.hostPort) : null;
    const loopback = LOOPBACK.test(heard?.groups?.host ?? '');
    const portVariable = input.context.variableNames.includes('PORT');
    const base = `Slipway started the container with PORT=${port} (the service's internalPort) and waited ${seconds} s for an HTTP answer on port ${port}; none came.`;
    let likelyCause: string;
    let suggestedFix: string;
    const commands: string[] = [];
    const bindHint = `Bind to 0.0.0.0 on port $PORT: for example app.listen(process.env.PORT, '0.0.0.0'), uvicorn --host 0.0.0.0 --port $PORT, gunicorn --bind 0.0.0.0:$PORT, flask run --host 0.0.0.0.`;
    if (heard && heardPort !== null && heardPort !== port) {
      likelyCause = `The app listens on port ${heardPort}, not ${port}: it logged ${quote(heard.input ?? heard[0])}. ${portVariable ? `PORT is set as a service variable, so Slipway does not set it to ${port}; ` : 'It ignores the PORT variable, '}and Slipway waits on internalPort ${port}.${loopback ? ' It also listens only on the loopback address, which nothing outside the container reaches.' : ''}`;
      suggestedFix = `Make the app listen on process.env.PORT / $PORT (port ${port}), or set the service's internalPort to ${heardPort}.${loopback ? ` ${bindHint}` : ''}`;
      commands.push(patchService({ internalPort: heardPort }));
    } else if (heard && loopback) {
      likelyCause = `The app listens only on the container's loopback address: it logged ${quote(heard!.input ?? heard![0])}. Connections from outside the container never reach it.`;
      suggestedFix = `${bindHint} Slipway sets PORT=${port}.`;
    } else {
      likelyCause = `${portVariable ? `PORT is set as a service variable, so the app may listen on that value rather than ${port}. ` : ''}The app never opened port ${port} on 0.0.0.0: it listens on another port or only on 127.0.0.1, is not a web server at all, or needed longer than ${seconds} s to start.`;
      suggestedFix = `Make the app listen on 0.0.0.0 and the port in $PORT (${port}), or set internalPort to the port it uses. A process that serves no HTTP belongs in runtimeMode "worker"; a slow start needs a larger SLIPWAY_START_TIMEOUT.`;
    }
    commands.push(...runLocally(input.context, input.lines), `curl -i http://127.0.0.1:${port}/`);
    return {
      summary: `The app started but did not answer HTTP on port ${port} within ${seconds} s.`,
      likelyCause: `${base} ${likelyCause}`,
      suggestedFix: `${suggestedFix} Then deploy again.`,
      commands,
    };
  },
};
