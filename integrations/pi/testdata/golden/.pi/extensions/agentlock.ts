// agentlock:generated v1 — do not edit: `agentlock init --agent pi` rewrites this file and `agentlock uninit --agent pi` removes it.
//
// Pi extension: hands every tool call, the session's start and its end to
// `agentlock hook pi <event>` (the payload as JSON on stdin) and does what it
// answers. No lock logic here: agentlock decides. An edit tool is blocked
// when agentlock cannot be run, since then nobody checked the file.
import { spawnSync } from "node:child_process";

const EDIT_TOOLS = new Set(["edit", "write"]);

export default function (pi: any) {
	let context = "";
	const hook = (event: string, ctx: any, extra: object = {}) => {
		const session = ctx?.sessionManager?.getSessionId?.() ?? "";
		const payload = { session_id: session, cwd: ctx?.cwd ?? process.cwd(), hook_event_name: event, ...extra };
		return spawnSync("agentlock", ["hook", "pi", event], {
			input: JSON.stringify(payload),
			encoding: "utf8",
			timeout: 30000,
			env: { ...process.env, PI_SESSION_ID: session },
		});
	};
	pi.on("session_start", (_event: any, ctx: any) => {
		const r = hook("session-start", ctx);
		context = r.status === 0 ? (r.stdout ?? "").trim() : "";
	});
	pi.on("before_agent_start", (event: any) => {
		if (context) return { systemPrompt: event.systemPrompt + "\n\n" + context };
	});
	pi.on("tool_call", (event: any, ctx: any) => {
		const r = hook("pre-edit", ctx, { tool_name: event.toolName, tool_input: event.input });
		if (r.status === 0) return;
		const why = (r.stderr ?? "").trim();
		if (r.status === 2) return { block: true, reason: why };
		if (EDIT_TOOLS.has(event.toolName)) {
			return { block: true, reason: `agentlock could not check this edit (${r.error?.message ?? why ?? "exit " + r.status}): install agentlock where PATH finds it, then retry.` };
		}
	});
	// After each tool: renew the session's locks, and record what a read read and what the
	// session's own edit wrote (a failed call changed and showed nothing). What the hook prints is
	// for the model (a file it read was changed since by another session, told once): it is added
	// to the tool's result as a text part, which the model reads next.
	pi.on("tool_result", (event: any, ctx: any) => {
		const r = hook("renew", ctx, event?.isError ? {} : { tool_name: event?.toolName, tool_input: event?.input });
		const told = r.status === 0 ? (r.stdout ?? "").trim() : "";
		if (told) return { content: [...(event?.content ?? []), { type: "text", text: told }], structuredContent: event?.structuredContent };
	});
	// The end of a turn: the run settled, no more work queued. The locks its edits took are released.
	pi.on("agent_settled", (_event: any, ctx: any) => {
		hook("turn-end", ctx);
	});
	pi.on("session_shutdown", (_event: any, ctx: any) => {
		hook("session-end", ctx);
	});
}
