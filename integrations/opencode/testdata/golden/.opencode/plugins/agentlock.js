// agentlock:generated v1 — do not edit: `agentlock init --agent opencode` rewrites this file and `agentlock uninit --agent opencode` removes it.
//
// Gates OpenCode's edit tools with agentlock. No lock logic lives here: every decision is
// `agentlock hook opencode <event>`'s, fed the event as JSON on stdin. An edit it refuses, or
// cannot check (agentlock missing or failing), is blocked by throwing its reason, which the
// model reads. `opencode --pure` loads no plugin: it gates nothing.
import { spawnSync } from "node:child_process";

const bin = "agentlock";
const editTools = new Set(["edit", "write", "apply_patch", "multiedit", "patch"]);

function hook(event, payload) {
  return spawnSync(bin, ["hook", "opencode", event], { input: JSON.stringify(payload), encoding: "utf8", timeout: 30000 });
}

export const AgentlockPlugin = async ({ directory }) => {
  const started = new Map(); // session id -> what session start tells the model
  const start = (id) => {
    if (!started.has(id)) {
      const r = hook("session-start", { session_id: id, cwd: directory });
      started.set(id, r.status === 0 ? r.stdout.trim() : "");
    }
    return started.get(id);
  };
  process.on("exit", () => {
    for (const id of started.keys()) hook("session-end", { session_id: id, cwd: directory });
  });
  return {
    "tool.execute.before": async (input, output) => {
      if (!editTools.has(input.tool)) return;
      start(input.sessionID);
      const r = hook("pre-edit", { session_id: input.sessionID, cwd: directory, tool_name: input.tool, tool_input: output.args });
      if (r.status === 0) return;
      const why = r.error ? r.error.message : r.status === null ? "stopped by " + r.signal : "exit " + r.status;
      throw new Error((r.stderr || "").trim() || `agentlock: could not check this edit (${bin} hook: ${why}): do not make it now; ask a person to run \`${bin} doctor\`.`);
    },
    "tool.execute.after": async (input) => {
      if (started.has(input.sessionID)) hook("renew", { session_id: input.sessionID, cwd: directory });
    },
    // The end of a turn: the session is idle again. The locks its edits took are released.
    event: async ({ event }) => {
      const id = event?.type === "session.idle" ? event.properties?.sessionID : undefined;
      if (id && started.has(id)) hook("turn-end", { session_id: id, cwd: directory });
    },
    "shell.env": async (input, output) => {
      if (input.sessionID) output.env.OPENCODE_SESSION_ID = input.sessionID;
    },
    "experimental.chat.system.transform": async (input, output) => {
      if (!input.sessionID) return;
      const text = start(input.sessionID);
      if (text) output.system.push(text);
    },
  };
};
