import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { freePort } from './net.js';

export interface S3Server {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Every request as "METHOD /path?query", to see how an upload was sent. */
  requests: string[];
  /** Unreachable: every connection, open or new, is dropped at once (as by a network outage) until set back. */
  setReachable(reachable: boolean): void;
  /** The keys of every object in the bucket, through the S3 API. */
  objectKeys(): Promise<string[]>;
  stop(): Promise<void>;
}

// s3rver knows one hard-wired account and checks only its key id: version 4 signatures are not verified.
const ACCESS_KEY_ID = 'S3RVER';
const SECRET_ACCESS_KEY = 'S3RVER';
const BUCKET = 'slipway-backups';
// Where s3rver's filesystem store keeps the parts of unfinished multipart uploads, one directory per upload id.
const uploadsDirectory = (root: string, bucket: string) => join(root, bucket, '._S3rver_uploads');

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function answerXml(res: ServerResponse, status: number, xml: string): void {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${xml}`);
}

/**
 * s3rver 3.7 answers AbortMultipartUpload with MethodNotAllowed and ListMultipartUploads with NotImplemented;
 * these two are served here from its store's directories, so tests can see an upload really aborted.
 * Returns false for every other request.
 */
async function serveMultipartGaps(root: string, method: string, url: URL, res: ServerResponse): Promise<boolean> {
  const [bucket = '', ...keyParts] = url.pathname.slice(1).split('/').filter(Boolean);
  const uploads = uploadsDirectory(root, decodeURIComponent(bucket));
  const uploadId = url.searchParams.get('uploadId');
  if (method === 'DELETE' && keyParts.length > 0 && uploadId !== null) {
    const found = /^[0-9a-f]+$/.test(uploadId) && (await readdir(uploads).catch((): string[] => [])).includes(uploadId);
    if (!found) {
      answerXml(res, 404, '<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>');
      return true;
    }
    await rm(join(uploads, uploadId), { recursive: true, force: true });
    res.writeHead(204).end();
    return true;
  }
  if (method === 'GET' && keyParts.length === 0 && url.searchParams.has('uploads')) {
    const entries: string[] = [];
    for (const id of await readdir(uploads).catch((): string[] => [])) {
      // A part that arrived after its upload was aborted recreates the directory without its key: list it anyway.
      const key = await readFile(join(uploads, id, 'key'), 'utf8').catch(() => '');
      entries.push(`<Upload><Key>${xmlText(key)}</Key><UploadId>${id}</UploadId></Upload>`);
    }
    const bucketName = xmlText(decodeURIComponent(bucket));
    answerXml(res, 200, `<ListMultipartUploadsResult><Bucket>${bucketName}</Bucket><IsTruncated>false</IsTruncated>${entries.join('')}</ListMultipartUploadsResult>`);
    return true;
  }
  return false;
}

/** s3rver in this process on a free loopback port, over a temporary directory holding one bucket; path-style only. */
export async function startS3Server(): Promise<S3Server> {
  const root = await mkdtemp(join(tmpdir(), 'slipway-s3-'));
  const s3rver = new S3rver({ directory: root, silent: true, vhostBuckets: false, configureBuckets: [{ name: BUCKET, configs: [] }] });
  await s3rver.configureBuckets();
  const handleS3 = s3rver.callback();
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const url = new URL(req.url ?? '/', 'http://s3');
    serveMultipartGaps(root, req.method ?? '', url, res).then(
      (served) => served || handleS3(req, res),
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
  let reachable = true;
  server.on('connection', (socket) => {
    if (!reachable) socket.destroy();
  });
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    bucket: BUCKET,
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    requests,
    setReachable(value) {
      reachable = value;
      if (!value) server.closeAllConnections();
    },
    async objectKeys() {
      const client = new S3Client({
        endpoint: `http://127.0.0.1:${port}`,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
      });
      try {
        const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
        return (listed.Contents ?? []).map((o) => o.Key ?? '');
      } finally {
        client.destroy();
      }
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
    },
  };
}
