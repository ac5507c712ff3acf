// Writes src/shared/api-types.ts: the API's types, generated from the OpenAPI document.
import { writeFileSync } from 'node:fs';
import { GENERATED_TYPES, generateApiTypes } from '../test/client/generate-types.js';

writeFileSync(GENERATED_TYPES, await generateApiTypes());
process.stdout.write(`wrote ${GENERATED_TYPES.pathname}\n`);
