// Makes the npm packages of a release from GoReleaser's archives, the way
// esbuild and Biome ship native tools: one package per platform carrying
// its binaries (@agentlock/agentlock-linux-x64, ...: os and cpu set, so npm
// installs only the one that fits), and the package @agentlock/agentlock
// that names them all as optional dependencies and links the native binary
// onto PATH.
//
// All live in the scope @agentlock: the bare name "agentlock" on the npm
// registry belongs to another publisher's unrelated package, so nothing
// here, and no message or document, may name it. The main package's
// unscoped part, agentlock, is also the name of its first bin: that is the
// one `npx @agentlock/agentlock ...` runs (npm exec picks the bin named
// like the package when a package has several).
//
//   node npm/pack.mjs [DIST [OUT]]     # default: dist, dist/npm
//
// DIST is GoReleaser's dist folder (artifacts.json, metadata.json and the
// archives); OUT receives one folder and one npm pack tarball per package.
// The binaries are taken from the archives that checksums.txt covers, not
// rebuilt. Node and npm only: no Go needed.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// The npm package name, and the binaries each archive holds (see
// .goreleaser.yaml: drop agentlock-etcd here if the etcd build goes;
// agentlock-mcp is what agentlock mcp runs, found beside agentlock).
const SCOPE = "@agentlock";
const BASE = "agentlock";
const NAME = `${SCOPE}/${BASE}`;
const BINARIES = ["agentlock", "agentlock-mcp", "agentlock-etcd"];
const CPU = { amd64: "x64", arm64: "arm64" };
// npx runs the bin named like the unscoped part of the package name.
if (!BINARIES.includes(BASE)) {
  throw new Error(`${NAME} has no bin named ${BASE}: npx ${NAME} would not know which bin to run`);
}
const REPOSITORY = { type: "git", url: "git+https://github.com/agentlock/agentlock.git" };

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(process.argv[2] ?? "dist");
const out = path.resolve(process.argv[3] ?? path.join(dist, "npm"));

function readJSON(file) {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`${file}: ${err.message} (run goreleaser release --snapshot --clean first)`);
  }
}

function writeJSON(file, value) {
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}

function pack(dir) {
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: dir, encoding: "utf8" }).trim();
  return path.join(out, name.split("\n").pop());
}

const version = readJSON(path.join(dist, "metadata.json")).version;
const archives = readJSON(path.join(dist, "artifacts.json")).filter(
  (a) => a.type === "Archive" && ["linux", "darwin"].includes(a.goos) && CPU[a.goarch],
);
if (archives.length === 0) {
  throw new Error(`${dist}/artifacts.json lists no linux or darwin archive`);
}
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

const tarballs = [];
const optionalDependencies = {};
for (const a of archives) {
  const os = a.goos;
  const cpu = CPU[a.goarch];
  const base = `${BASE}-${os}-${cpu}`;
  const name = `${SCOPE}/${base}`;
  const dir = path.join(out, base);
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  execFileSync("tar", ["-xzf", path.resolve(a.path), "-C", path.join(dir, "bin"), ...BINARIES]);
  for (const bin of BINARIES) {
    fs.chmodSync(path.join(dir, "bin", bin), 0o755);
  }
  writeJSON(path.join(dir, "package.json"), {
    name,
    version,
    description: `The agentlock binaries for ${os} ${cpu} (installed by the package ${NAME})`,
    repository: REPOSITORY,
    publishConfig: { access: "public" },
    os: [os],
    cpu: [cpu],
    files: ["bin"],
    preferUnplugged: true,
  });
  fs.writeFileSync(path.join(dir, "README.md"), `# ${name}\n\nThe native \`agentlock\` binaries for ${os} ${cpu}, from the release archive ${a.name}. Install the \`${NAME}\` package, not this one: \`npm install -g ${NAME}\`. (The unscoped npm package \`agentlock\` is another publisher's, not agentlock: do not install it.)\n`);
  optionalDependencies[name] = version;
  tarballs.push(pack(dir));
}

const main = path.join(out, BASE);
fs.cpSync(path.join(here, "agentlock"), main, { recursive: true });
writeJSON(path.join(main, "package.json"), {
  name: NAME,
  version,
  description: "Locks that let several AI coding agents share one repository without overwriting each other's files",
  repository: REPOSITORY,
  publishConfig: { access: "public" },
  bin: Object.fromEntries(BINARIES.map((b) => [b, `bin/${b}`])),
  scripts: { postinstall: "node install.js" },
  optionalDependencies,
  os: [...new Set(archives.map((a) => a.goos))],
  cpu: [...new Set(archives.map((a) => CPU[a.goarch]))],
  files: ["bin", "install.js"],
});
tarballs.push(pack(main));
for (const t of tarballs) {
  console.log(t);
}
