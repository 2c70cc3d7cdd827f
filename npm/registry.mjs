// A read-only npm registry on 127.0.0.1 that serves the npm tarballs
// npm/pack.mjs made, and nothing else, so that .ci/release-check can run
// the exact commands users type (npm install -g @agentlock/agentlock,
// npx @agentlock/agentlock init ...) with --registry pointing here: npm
// resolves the names, the optional dependencies and npx's bin as it does
// against registry.npmjs.org, with no network.
//
//   node npm/registry.mjs PORTFILE TARBALL...
//
// Listens on 127.0.0.1, a free port, written to PORTFILE once it listens;
// serves each package's document (GET /@agentlock%2fagentlock) and its
// tarballs; answers 404 to every other name (the bare name agentlock
// included), so that nothing unscoped can be installed through it.
import crypto from "node:crypto";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

const [portFile, ...tarballs] = process.argv.slice(2);
if (!portFile || tarballs.length === 0) {
  throw new Error("usage: node npm/registry.mjs PORTFILE TARBALL...");
}

// name -> { manifest, file, data }, one version each (a snapshot).
const packages = new Map();
for (const file of tarballs) {
  const data = fs.readFileSync(file);
  const manifest = JSON.parse(execFileSync("tar", ["-xOzf", file, "package/package.json"], { encoding: "utf8" }));
  if (packages.has(manifest.name)) {
    throw new Error(`${file}: a second tarball of ${manifest.name}`);
  }
  packages.set(manifest.name, { manifest, file, data });
}

function packument(base, name) {
  const { manifest, file, data } = packages.get(name);
  const tarball = `${base}/${name}/-/${path.basename(file)}`;
  const dist = {
    tarball,
    shasum: crypto.createHash("sha1").update(data).digest("hex"),
    integrity: "sha512-" + crypto.createHash("sha512").update(data).digest("base64"),
  };
  return {
    name,
    "dist-tags": { latest: manifest.version },
    versions: { [manifest.version]: { ...manifest, _id: `${name}@${manifest.version}`, dist } },
  };
}

const server = http.createServer((req, res) => {
  const url = decodeURIComponent(req.url.split("?")[0]).replace(/^\/+/, "");
  const base = `http://${req.headers.host}`;
  if (req.method === "GET" && packages.has(url)) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(packument(base, url)));
    return;
  }
  const m = /^(.+)\/-\/([^/]+\.tgz)$/.exec(url);
  if (req.method === "GET" && m && packages.has(m[1]) && path.basename(packages.get(m[1]).file) === m[2]) {
    res.writeHead(200, { "content-type": "application/octet-stream" });
    res.end(packages.get(m[1]).data);
    return;
  }
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: "not found" }));
});
server.listen(0, "127.0.0.1", () => {
  fs.writeFileSync(portFile, String(server.address().port));
});
