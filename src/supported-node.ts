/**
 * Imported first by each process entry (server and CLI): on a Node.js older than the versions we
 * support, one line naming them and exit 1, before anything else runs. Node 20 ran the server
 * without a word, though it is past its end of life and untested here; npm only warns about
 * `engines`. Kept free of imports so that it is evaluated before any other module.
 */
const SUPPORTED = 'Node.js 22 (22.12 or later) or 24';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(`three-good-sources: needs ${SUPPORTED}; this is Node.js ${process.versions.node}\n`);
  process.exit(1);
}

export {};
