// Postinstall of the npm package @agentlock/agentlock: put the native
// binaries of the platform package (@agentlock/agentlock-<os>-<cpu>, an
// optional dependency; the scope because the bare name agentlock on the npm
// registry is another publisher's package) in place
// of bin/agentlock, bin/agentlock-mcp and bin/agentlock-etcd, the shell
// launchers npm links onto PATH (agentlock mcp runs the agentlock-mcp beside
// agentlock: both are native, or both launchers). Hooks then run the native agentlock itself: no Node and no
// shell between an agent's edit and the lock check. When this script does
// not run (npm --ignore-scripts, install scripts not allowed), the
// launchers stay and still run the native binary, through one sh exec.
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");

const cpus = { x64: "x64", arm64: "arm64" };
const oses = { linux: "linux", darwin: "darwin" };

function main() {
  const os = oses[process.platform];
  const cpu = cpus[process.arch];
  if (!os || !cpu) {
    console.error(`agentlock: no native build for ${process.platform} ${process.arch}: agentlock runs on linux and darwin, x64 and arm64`);
    return;
  }
  const platform = `@agentlock/agentlock-${os}-${cpu}`;
  let dir;
  try {
    dir = path.dirname(require.resolve(`${platform}/package.json`));
  } catch (err) {
    console.error(`agentlock: the package ${platform} is not installed (optional dependencies omitted?): bin/agentlock will say so when run`);
    return;
  }
  for (const name of ["agentlock", "agentlock-mcp", "agentlock-etcd"]) {
    const native = path.join(dir, "bin", name);
    const launcher = path.join(__dirname, "bin", name);
    if (!fs.existsSync(native)) {
      continue;
    }
    const tmp = `${launcher}.${process.pid}.tmp`;
    try {
      try {
        fs.linkSync(native, tmp);
      } catch {
        fs.copyFileSync(native, tmp);
      }
      fs.chmodSync(tmp, 0o755);
      // Replace the launcher only with a binary that runs here.
      execFileSync(tmp, ["version"], { stdio: "ignore", timeout: 10000 });
      fs.renameSync(tmp, launcher);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      console.error(`agentlock: kept the launcher bin/${name} (${err.message})`);
    }
  }
}

main();
