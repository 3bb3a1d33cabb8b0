import { completable, type McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { DEFAULT_CONTEXT_BUDGET } from "../services/context-service.js";
import type { Services } from "../services/create-services.js";
import { namespaceArg } from "./tools/schemas.js";

/** How many completions a prompt argument offers. */
const COMPLETIONS = 10;
/** Memories a prompt pulls in before formatting. */
const PROMPT_RECALL = 50;

/** Titles of memories recalled for what was typed so far: completion for query-like arguments. */
function titleCompletion(services: Services) {
  return async (value: string): Promise<string[]> => {
    const { hits } = await services.recall.recall({ query: value, limit: COMPLETIONS });
    return hits.map((h) => h.memory.title);
  };
}

/** Namespaces of listed memories that start with what was typed. */
function namespaceCompletion(services: Services) {
  return async (value: string | undefined = ""): Promise<string[]> => {
    const { memories } = await services.list.list({ limit: 1000, sort: "modified" });
    const seen = new Set<string>();
    for (const m of memories) {
      const parts = m.namespace.split("/");
      for (let i = 1; i <= parts.length; i++) seen.add(parts.slice(0, i).join("/"));
    }
    return [...seen]
      .filter((ns) => ns.startsWith(value))
      .sort()
      .slice(0, COMPLETIONS);
  };
}

/** Registers atlatl's prompts on a server (built once, registered on each instance). */
export type RegisterPrompts = (server: McpServer) => void;

/**
 * Prompts: "recall and summarize" and "context for this task". Both run the
 * same services as the tools and put the memories into the prompt text (within
 * a token budget), so a client needs no tool call to use them. Arguments offer
 * completion: memory titles for the query, namespaces for the namespace. The
 * argument schemas are made here, once; the returned function only registers.
 */
export function atlatlPrompts(services: Services): RegisterPrompts {
  const recallArgs = z.object({
    query: completable(
      z.string().max(2000).describe("The topic to recall"),
      titleCompletion(services),
    ),
    // Optional outside the completable: the SDK 2.x looks for the completer under
    // `.optional()`. A clone: `completable` marks the schema it is given, and
    // the shared `namespaceArg` gets a prompt per principal.
    namespace: completable(namespaceArg.clone(), namespaceCompletion(services))
      .optional()
      .describe("Only this namespace prefix, e.g. _semantic"),
  });
  const contextArgs = z.object({
    task: completable(
      z.string().max(2000).describe("The task about to be done"),
      titleCompletion(services),
    ),
    budget_tokens: z
      .string()
      .regex(/^\d{2,6}$/)
      .optional()
      .describe(`Token budget for the memories (default ${DEFAULT_CONTEXT_BUDGET})`),
  });
  return (server) => {
    server.registerPrompt(
      "recall_and_summarize",
      {
        title: "Recall and summarize",
        description:
          "Recall memories about a topic and ask for a concise summary of what is known.",
        argsSchema: recallArgs,
      },
      async ({ query, namespace }) => {
        const { hits } = await services.recall.recall({
          query,
          filter: namespace ? { namespace } : {},
          limit: PROMPT_RECALL,
        });
        const { context } = await services.context.format(hits, DEFAULT_CONTEXT_BUDGET);
        return {
          description: `Summary of memories about ${JSON.stringify(query)}`,
          messages: [
            {
              role: "user",
              content: {
                type: "text",
                text:
                  `Summarize what these memories say about "${query}": the decisions, the facts and ` +
                  "anything contradictory or out of date, citing memory titles. If they say nothing " +
                  `relevant, say so.\n\n${context || "(no memories matched)"}`,
              },
            },
          ],
        };
      },
    );

    server.registerPrompt(
      "context_for_task",
      {
        title: "Context for this task",
        description:
          "Bring the memories relevant to a task into the conversation before starting it.",
        argsSchema: contextArgs,
      },
      async ({ task, budget_tokens }) => {
        const { hits } = await services.recall.recall({ query: task, limit: PROMPT_RECALL });
        const budget = budget_tokens ? Number(budget_tokens) : DEFAULT_CONTEXT_BUDGET;
        const { context } = await services.context.format(hits, budget);
        return {
          description: `Memories for: ${task}`,
          messages: [
            {
              role: "user",
              content: {
                type: "text",
                text:
                  `I am about to work on this task: ${task}\n\nRelevant memories from the team's ` +
                  "memory server follow. Use them (decisions, conventions, past incidents) and say " +
                  `which you relied on.\n\n${context || "(no memories matched)"}`,
              },
            },
          ],
        };
      },
    );
  };
}
