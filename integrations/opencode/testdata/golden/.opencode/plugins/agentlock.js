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

// maxDepth bounds the walk up a session's parents (sub-agents of sub-agents).
const maxDepth = 16;

export const AgentlockPlugin = async ({ directory, client }) => {
  // A sub-agent (the task tool) runs in a child session of OpenCode's own: for agentlock it is
  // a child of the root session it works for ("<root>/<child>"), told apart by sub_agent.
  const roots = new Map(); // session id -> its root session, "" for a root
  const rootOf = async (id) => {
    if (!roots.has(id)) {
      let root = "";
      try {
        for (let cur = id, depth = 0; depth < maxDepth; depth++) {
          const parent = (await client.session.get({ path: { id: cur } }))?.data?.parentID;
          if (!parent) break;
          root = cur = parent;
        }
      } catch {
        // No parent known (an older SDK, the server busy): a session of its own.
      }
      roots.set(id, root);
    }
    return roots.get(id);
  };
  const payload = async (id, more) => {
    const root = await rootOf(id);
    return root ? { session_id: root, sub_agent: id, cwd: directory, ...more } : { session_id: id, cwd: directory, ...more };
  };
  const started = new Map(); // session id -> [what session start tells the model, its end payload]
  const start = async (id) => {
    if (!started.has(id)) {
      const p = await payload(id, {});
      const r = hook("session-start", p);
      started.set(id, [r.status === 0 ? r.stdout.trim() : "", p]);
    }
    return started.get(id)[0];
  };
  process.on("exit", () => {
    for (const [, p] of started.values()) hook("session-end", p);
  });
  return {
    "tool.execute.before": async (input, output) => {
      if (!editTools.has(input.tool)) return;
      await start(input.sessionID);
      const r = hook("pre-edit", await payload(input.sessionID, { tool_name: input.tool, tool_input: output.args }));
      if (r.status === 0) return;
      const why = r.error ? r.error.message : r.status === null ? "stopped by " + r.signal : "exit " + r.status;
      throw new Error((r.stderr || "").trim() || `agentlock: could not check this edit (${bin} hook: ${why}): do not make it now; ask a person to run \`${bin} doctor\`.`);
    },
    // After each tool: renew the session's locks, and record what a read tool read and what the
    // session's own edit wrote (its tool and args), so that a later write from a stale read is refused.
    // What the hook prints is for the model (a file it read was changed since by another session,
    // told once): it is appended to the tool's output, which the model reads next.
    "tool.execute.after": async (input, output) => {
      if (!started.has(input.sessionID)) return;
      const r = hook("renew", { ...started.get(input.sessionID)[1], tool_name: input.tool, tool_input: input.args });
      const told = r.status === 0 ? (r.stdout || "").trim() : "";
      if (told && typeof output?.output === "string") output.output = output.output ? output.output + "\n\n" + told : told;
    },
    // The end of a turn: the session is idle again. The locks its edits took are released.
    event: async ({ event }) => {
      const id = event?.type === "session.idle" ? event.properties?.sessionID : undefined;
      if (id && started.has(id)) hook("turn-end", { session_id: id, cwd: directory });
    },
    "shell.env": async (input, output) => {
      if (!input.sessionID) return;
      output.env.OPENCODE_SESSION_ID = input.sessionID;
      const root = await rootOf(input.sessionID);
      if (root) output.env.OPENCODE_ROOT_SESSION_ID = root;
    },
    "experimental.chat.system.transform": async (input, output) => {
      if (!input.sessionID) return;
      const text = await start(input.sessionID);
      if (text) output.system.push(text);
    },
  };
};
