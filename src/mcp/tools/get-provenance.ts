import { ALGORITHM, CANONICALIZATION } from '../../provenance/signature.js';
import { NO_ARGUMENTS, READ_ONLY, answer, oncePerCatalog, schema, type Tool } from './tool.js';

function verificationSteps(publicKey: string): string[] {
  return [
    `1. With our command-line tool: npx three-good-sources verify <this server's base URL> --pubkey ${publicKey}`,
    '   It fetches GET /registry and GET /registry/signature, checks the digest and the Ed25519 signature, and prints one OK line or what failed.',
    '2. With openssl 3 and coreutils alone: save GET /registry (the exact signed bytes) and the base64 "signature" field of GET /registry/signature (decoded, 64 bytes);',
    '   turn the z-base-32 key into raw bytes (tr ybndrfg8ejkmcpqxot1uwisza345h769 to the RFC 4648 alphabet, pad with "====", base32 -d),',
    '   prefix the 12 DER bytes 302a300506032b6570032100 and convert with openssl pkey -pubin -inform DER,',
    '   then run openssl pkeyutl -verify -pubin -inkey key.pem -rawin -in registry.json -sigfile signature.bin. The README section "Verify a registry" has the exact commands.',
    'A signature only proves who signed if you got the public key from the curator by another channel: compare it with the key the curator publishes.',
  ];
}

export const getProvenance: Tool = {
  definition: {
    name: 'get_provenance',
    title: 'Get provenance',
    description:
      'Tell who curated the registry behind these sources and how to verify it: curator name and Ed25519 public key (z-base-32), ' +
      'registry version and date, the SHA-256 of its canonical JSON (RFC 8785), the signature over those bytes, the endorsement count, ' +
      'and verification steps that work with our command-line tool or with openssl alone. Takes no arguments.',
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
      }),
      verification: schema.strings,
    }),
    annotations: READ_ONLY,
  },

  run: oncePerCatalog(({ registry, signed }) => {
    const categories = Object.keys(registry.categories).length;
    const steps = verificationSteps(signed.publicKey);
    const text = [
      `Curator: ${registry.curator.name}`,
      `Public key: ${signed.publicKey} (Ed25519, z-base-32)`,
      ...(signed.ephemeralKey
        ? ['Warning: this server has no configured curator key; it signs with a key made at start-up, which changes when it restarts.']
        : []),
      `Registry version: ${registry.version}`,
      `Registry updated: ${registry.updated}`,
      `Categories: ${categories}`,
      `Endorsements: ${registry.endorsements.length}`,
      `SHA-256 of the canonical registry (RFC 8785): ${signed.sha256}`,
      `Signature (Ed25519 over those exact bytes, base64): ${signed.signature}`,
      '',
      'How to verify:',
      ...steps,
    ].join('\n');
    return answer(text, {
      curator: { name: registry.curator.name, pubkey: signed.publicKey },
      registry: { version: registry.version, updated: registry.updated, categories },
      endorsements: registry.endorsements.length,
      signature: {
        algorithm: ALGORITHM,
        canonicalization: CANONICALIZATION,
        sha256: signed.sha256,
        signature: signed.signature,
        ephemeralKey: signed.ephemeralKey,
      },
      verification: steps,
    });
  }),
};
