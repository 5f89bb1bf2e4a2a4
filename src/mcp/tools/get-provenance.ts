import { ALGORITHM, CANONICALIZATION, SIGNING_MODES } from '../../provenance/signature.js';
import { provenanceFacts, SIGNED_BY } from '../../provenance/facts.js';
import { NO_ARGUMENTS, READ_ONLY, answer, oncePerCatalog, schema, type Tool } from './tool.js';

export const getProvenance: Tool = {
  definition: {
    name: 'get_provenance',
    title: 'Get provenance',
    description:
      'Tell who curated the registry behind these sources and how to verify it: curator name and Ed25519 public key (z-base-32), ' +
      'registry version and date, the SHA-256 of its canonical JSON (RFC 8785), the signature over those bytes, who signed it (the curator offline, this server, or a development key), ' +
      'the signed history\'s length, the endorsement count, ' +
      'and verification steps that need only the server\'s URL and openssl (or our command-line tool, from a checkout). Takes no arguments.',
    inputSchema: NO_ARGUMENTS,
    outputSchema: schema.object({
      curator: schema.object({ name: schema.string, pubkey: schema.string }),
      registry: schema.object({ version: schema.string, updated: schema.string, categories: { type: 'integer' } }),
      endorsements: { type: 'integer', minimum: 0 },
      signature: schema.object({
        algorithm: { const: ALGORITHM },
        canonicalization: { const: CANONICALIZATION },
        sha256: schema.string,
        signature: schema.string,
        ephemeralKey: { type: 'boolean' },
        signedBy: { enum: SIGNING_MODES },
      }),
      history: schema.object({
        entries: { type: 'integer', minimum: 0 },
        latest: { anyOf: [schema.object({ version: schema.string, date: schema.string }), { type: 'null' }] },
      }),
      verification: schema.strings,
      recipes: schema.object({ openssl: schema.strings, cli: schema.strings }),
    }),
    annotations: READ_ONLY,
  },

  run: oncePerCatalog((catalog) => {
    const facts = provenanceFacts(catalog);
    const { registry, signed, history } = catalog;
    const latest = history[history.length - 1];
    const text = [
      `Curator: ${registry.curator.name}`,
      `Public key: ${signed.publicKey} (Ed25519, z-base-32)`,
      `Signed by: ${SIGNED_BY[signed.mode]}`,
      `Registry version: ${registry.version}`,
      `Registry updated: ${registry.updated}`,
      `Categories: ${facts.registry.categories}`,
      `Endorsements: ${registry.endorsements.length}`,
      `SHA-256 of the canonical registry (RFC 8785): ${signed.sha256}`,
      latest === undefined
        ? 'History: none (only a curator-signed registry has a signed history)'
        : `History: ${history.length} signed version${history.length === 1 ? '' : 's'}, the latest ${latest.version} on ${latest.date} (GET /registry/history, or the get_history tool)`,
      `Signature (Ed25519 over those exact bytes, base64): ${signed.signature}`,
      '',
      'How to verify:',
      ...facts.verification,
    ].join('\n');
    return answer(text, { ...facts });
  }),
};
