// A read-only npm registry on 127.0.0.1 serving the package tarballs of one
// directory, for scripts/package-test.sh: `npx cctree` then resolves `cctree`
// and its optional dependencies exactly as it will from the public registry,
// from the files scripts/package.sh built. Each tarball's package.json names
// the package and version it is; the packument lists them all, `latest`
// being the highest version without a pre-release part.
//
//   node scripts/npm-registry.mjs DIR PORT_FILE
//
// Writes the port it listens on to PORT_FILE, answers GET and HEAD only, and
// stops by itself after 15 minutes, or when its standard input closes.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { gunzipSync } from "node:zlib";

const [dir, portFile] = process.argv.slice(2);
if (!dir || !portFile) {
  console.error("usage: node scripts/npm-registry.mjs DIR PORT_FILE");
  process.exit(2);
}

// package/package.json out of a .tgz (ustar: 512-byte headers, sizes in octal).
function manifestOf(file) {
  const tar = gunzipSync(readFileSync(file));
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const field = (from, len) => header.subarray(from, from + len).toString("latin1").replace(/\0.*$/s, "");
    const name = field(345, 155) ? `${field(345, 155)}/${field(0, 100)}` : field(0, 100);
    const size = parseInt(field(124, 12).trim() || "0", 8);
    if (name === "package/package.json") {
      return JSON.parse(tar.subarray(at + 512, at + 512 + size).toString("utf8"));
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${file} holds no package/package.json`);
}

const files = new Map(); // tarball name -> bytes
const packages = new Map(); // package name -> { version -> manifest }
for (const f of readdirSync(dir).filter((f) => f.endsWith(".tgz")).sort()) {
  const bytes = readFileSync(path.join(dir, f));
  const manifest = manifestOf(path.join(dir, f));
  files.set(f, bytes);
  manifest._id = `${manifest.name}@${manifest.version}`;
  manifest.dist = {
    tarball: f, // made absolute per request, below
    integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
    shasum: createHash("sha1").update(bytes).digest("hex"),
  };
  if (!packages.has(manifest.name)) packages.set(manifest.name, {});
  packages.get(manifest.name)[manifest.version] = manifest;
}
if (packages.size === 0) {
  console.error(`npm-registry: no .tgz in ${dir}`);
  process.exit(2);
}

const server = createServer((req, res) => {
  const send = (status, type, body) => {
    res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
    res.end(req.method === "HEAD" ? undefined : body);
  };
  if (req.method !== "GET" && req.method !== "HEAD") return send(405, "text/plain", "read-only\n");
  const url = new URL(req.url, "http://127.0.0.1");
  const tarball = url.pathname.match(/^\/-\/tarballs\/([^/]+)$/);
  if (tarball && files.has(tarball[1])) return send(200, "application/octet-stream", files.get(tarball[1]));
  const name = decodeURIComponent(url.pathname.slice(1));
  const versions = packages.get(name);
  if (!versions) return send(404, "application/json", JSON.stringify({ error: "Not found" }));
  const base = `http://${req.headers.host}/-/tarballs/`;
  const listed = {};
  for (const [v, m] of Object.entries(versions)) {
    listed[v] = { ...m, dist: { ...m.dist, tarball: base + m.dist.tarball } };
  }
  const releases = Object.keys(versions).filter((v) => !v.includes("-"));
  const latest = (releases.length ? releases : Object.keys(versions)).sort().pop();
  send(200, "application/json", JSON.stringify({ name, "dist-tags": { latest }, versions: listed }));
});

server.listen(0, "127.0.0.1", () => {
  writeFileSync(portFile, `${server.address().port}\n`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
setTimeout(stop, 15 * 60 * 1000).unref();
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();
