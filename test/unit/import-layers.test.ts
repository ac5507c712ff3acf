import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCE_FOLDERS = ['src', 'commands', 'projections'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The files of the tree a file imports (type-only imports too: they tie the two files as much). */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((i) => i.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name))
    .map((path) => [path, path.replace(/\.js$/, '.ts'), path.replace(/\.js$/, '.tsx')].find((p) => existsSync(p) && p.match(/\.tsx?$/)))
    .filter((path): path is string => path !== undefined);
}

const files = SOURCE_FOLDERS.flatMap((folder) => sourceFiles(join(root, folder)));
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const name = (file: string) => relative(root, file);

/** Groups of files that import each other, directly or through others (Tarjan's strongly connected components). */
function circles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      group.push(name(member));
      if (member === file) break;
    }
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(group.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

t.test('no source file imports a file that imports it back, directly or through others', async (t) => {
  t.ok(files.length > 100, `read ${files.length} source files`);
  t.same(circles(), []);
});

t.test('the deployment runs sit on their toolkit, and the dispatcher and the deployer on the runs, never the other way', async (t) => {
  const deployment = join(root, 'src/processes/deployment');
  const inFolder = (folder: string) => (file: string) => file.startsWith(join(deployment, folder) + '/');
  const top = (file: string) => dirname(file) === deployment;
  const wrong = (from: (f: string) => boolean, to: (f: string) => boolean) =>
    files.filter(from).flatMap((file) => graph.get(file)!.filter(to).map((target) => `${name(file)} -> ${name(target)}`));
  t.same(wrong(inFolder('toolkit'), (f) => inFolder('runs')(f) || top(f)), [], 'the toolkit imports no run, no dispatcher and no deployer file');
  t.same(wrong(inFolder('runs'), top), [], 'a run imports neither the dispatcher nor the deployer');
});
