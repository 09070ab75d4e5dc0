import { isAsyncIterable, type Plugin } from "graphql-yoga";
import type { GraphQLContext } from "./context.ts";

/**
 * What a resolver of a streamed field says about the message it just resolved: its event id (the
 * SSE `id:` line, which a reconnecting EventSource sends back as `Last-Event-ID`) and result
 * extensions (`skipped`, on the first message of a resume that could not replay everything).
 */
export interface StreamedMessage {
  id: string;
  extensions?: Record<string, unknown>;
}

type StreamContext = GraphQLContext & { streamedMessage?: StreamedMessage };

/** Called by a subscription's resolve for the message it is resolving. */
export function describeStreamedMessage(ctx: GraphQLContext, message: StreamedMessage) {
  (ctx as StreamContext).streamedMessage = message;
}

/**
 * Adds what resolvers described to each subscription result, and `id: <event id>` to each SSE
 * message. Yoga's own SSE writer stays in charge (pings, completion, cancellation): its output is
 * only given the id line before each `event: next`, in the order results were pulled from the stream.
 */
export function useEventStreamIds(): Plugin<GraphQLContext> {
  const ids = new WeakMap<object, string>();
  return {
    onSubscribe: () => ({
      onSubscribeResult: ({ args }) => ({
        onNext: ({ result, setResult }) => {
          const ctx = args.contextValue as StreamContext;
          const described = ctx.streamedMessage;
          if (!described) return;
          ctx.streamedMessage = undefined;
          const next = described.extensions ? { ...result, extensions: { ...result.extensions, ...described.extensions } } : result;
          ids.set(next, described.id);
          if (next !== result) setResult(next);
        },
      }),
    }),
    onResultProcess: ({ request, result, resultProcessor, setResultProcessor }) => {
      if (!resultProcessor || !isAsyncIterable(result) || !request.headers.get("accept")?.includes("text/event-stream")) return;
      const writeSse = resultProcessor;
      setResultProcessor(async (input, fetchAPI, mediaType) => {
        const pending: (string | undefined)[] = [];
        const source = input as AsyncIterable<object>;
        const noted: AsyncIterable<object> = {
          [Symbol.asyncIterator]() {
            const iterator = source[Symbol.asyncIterator]();
            return {
              next: async () => {
                const step = await iterator.next();
                if (!step.done && step.value != null) pending.push(ids.get(step.value));
                return step;
              },
              return: async (value?: unknown) => (iterator.return ? iterator.return(value) : { done: true as const, value: undefined }),
            };
          },
        };
        const response = await writeSse(noted as never, fetchAPI, mediaType);
        if (!response.body) return response;
        const encoder = new TextEncoder();
        const decoder = new TextDecoder();
        // Yoga enqueues "event: next\n" as a chunk of its own, but chunks may reach here joined;
        // a data line is one line of JSON, so "event: next" at a line start always opens a message.
        const addIds = (chunk: Uint8Array) =>
          encoder.encode(
            decoder.decode(chunk, { stream: true }).replace(/(^|\n)event: next\n/g, (frame, start: string) => {
              const id = pending.shift();
              // An id never contains a line break (evt_<hex>); checked anyway, an SSE line cannot.
              return id && !/[\r\n]/.test(id) ? `${start}id: ${id}\nevent: next\n` : frame;
            }),
          );
        // Pulled by hand rather than piped: a client that goes away cancels the read in flight, and a
        // pipe would leave that rejection unhandled, which ends a Node process.
        const reader = response.body.getReader();
        const withIds = new fetchAPI.ReadableStream<Uint8Array>({
          async pull(controller) {
            try {
              const { done, value } = await reader.read();
              if (done) controller.close();
              else controller.enqueue(addIds(value));
            } catch (error) {
              controller.error(error);
            }
          },
          cancel: (reason) => reader.cancel(reason).catch(() => {}),
        });
        return new fetchAPI.Response(withIds, { status: response.status, statusText: response.statusText, headers: response.headers });
      }, "text/event-stream");
    },
  };
}
