import t from 'tap';
import { labelFinalStage } from '../../src/build/final-stage-labels.js';

const labels = { 'slipway.service': 's1', 'slipway.managed': 'true' };
const LABEL_LINE = 'LABEL slipway.service="s1" slipway.managed="true"\n';

t.test('the labels come right after the FROM of the final stage', async (t) => {
  t.equal(labelFinalStage('FROM python\nWORKDIR /app\nCOPY . .\nCMD ["python3"]\n', labels), `FROM python\n${LABEL_LINE}WORKDIR /app\nCOPY . .\nCMD ["python3"]\n`);
  const multi = 'FROM node AS build\nRUN npm ci\nFROM nginx\nCOPY --from=build /app /usr/share/nginx/html\n';
  t.equal(labelFinalStage(multi, labels), `FROM node AS build\nRUN npm ci\nFROM nginx\n${LABEL_LINE}COPY --from=build /app /usr/share/nginx/html\n`);
  t.equal(labelFinalStage('from python', labels), `from python\n${LABEL_LINE}`, 'a last line without its break, a keyword in lower case');
  t.equal(labelFinalStage('FROM python\r\nCMD x\r\n', labels), `FROM python\r\n${LABEL_LINE}CMD x\r\n`, 'CRLF lines');
});

t.test('continued lines and comments are parsed as the builder does', async (t) => {
  t.equal(labelFinalStage('FROM python \\\n  AS final\nCMD x\n', labels), `FROM python \\\n  AS final\n${LABEL_LINE}CMD x\n`, 'a FROM continued on the next line');
  t.equal(labelFinalStage('FROM python \\\n# a comment inside\n\n  AS final\nCMD x\n', labels), `FROM python \\\n# a comment inside\n\n  AS final\n${LABEL_LINE}CMD x\n`);
  const inRun = 'FROM a\nRUN echo \\\nFROM b\nCMD x\n';
  t.equal(labelFinalStage(inRun, labels), `FROM a\n${LABEL_LINE}RUN echo \\\nFROM b\nCMD x\n`, 'a FROM inside a continued RUN is not an instruction');
  t.equal(labelFinalStage('FROM a\n# FROM b\nCMD x\n', labels), `FROM a\n${LABEL_LINE}# FROM b\nCMD x\n`, 'nor one in a comment');
  t.equal(labelFinalStage('FROM a\\  \t\n  AS b\nCMD x\n', labels), `FROM a\\  \t\n  AS b\n${LABEL_LINE}CMD x\n`, 'blanks after the escape character');
});

t.test('the escape directive changes the continuation character', async (t) => {
  const backtick = '# escape=`\nFROM a `\n  AS b\nRUN dir c:\\\nCMD x\n';
  t.equal(labelFinalStage(backtick, labels), `# escape=\`\nFROM a \`\n  AS b\n${LABEL_LINE}RUN dir c:\\\nCMD x\n`);
  const late = 'FROM a\n# escape=`\nRUN echo `\nFROM b\n';
  t.equal(labelFinalStage(late, labels), `FROM a\n# escape=\`\nRUN echo \`\nFROM b\n${LABEL_LINE}`, 'a directive after an instruction is a comment');
  t.equal(labelFinalStage('# escape=x\nFROM a\n', labels), null, 'an escape character the builder refuses');
});

t.test('a text with no place for sure gives null', async (t) => {
  t.equal(labelFinalStage('', labels), null, 'empty');
  t.equal(labelFinalStage('# only a comment\nRUN x\n', labels), null, 'no FROM');
  t.equal(labelFinalStage('FROM a\nRUN x \\\n', labels), null, 'a continuation that never ends');
  t.equal(labelFinalStage('FROM a\n', {}), 'FROM a\n', 'no labels: the text as it is');
});
