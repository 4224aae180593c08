import { parentPort, threadId } from 'node:worker_threads';
import { renderPng, type Node } from './render';

/** A render request from the pool (render-pool.ts); the node tree arrives structured-cloned. */
export interface RenderTask {
  id: number;
  node: Node;
  width: number;
  height: number;
}

export type RenderReply = { id: number; png: Uint8Array; threadId: number } | { id: number; error: string };

// Runs inside a worker thread: satori's layout and resvg's rasterising block for tens to hundreds
// of milliseconds, which here never holds up the API's event loop.
parentPort?.on('message', (task: RenderTask) => {
  renderPng(task.node, task.width, task.height).then(
    (png) => {
      const bytes = new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
      parentPort!.postMessage({ id: task.id, png: bytes, threadId } satisfies RenderReply);
    },
    (err: unknown) => parentPort!.postMessage({ id: task.id, error: err instanceof Error ? err.message : String(err) } satisfies RenderReply),
  );
});
