import v8 from 'node:v8';
import vm from 'node:vm';
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

/**
 * resvg keeps each rasterised pixmap (up to 8 MB for a story card) in native memory that V8 does
 * not see, so this thread's small heap never triggers a collection and the pixmaps pile up (GBs
 * after a few hundred renders; bench/memory.ts). A full collection of this thread's heap after
 * each render frees them (RSS flat at ~250 MB instead of +8 MB a story card): a few ms here,
 * never on the API's event loop.
 */
const collect: (() => void) | null = (() => {
  try {
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc') as () => void;
  } catch {
    return null; // renders still work; memory is then left to V8's own pace
  }
})();

// Runs inside a worker thread: satori's layout and resvg's rasterising block for tens to hundreds
// of milliseconds, which here never holds up the API's event loop.
parentPort?.on('message', (task: RenderTask) => {
  // Queued tasks arrive back to back with no timer turn between them: collect before each too.
  collect?.();
  renderPng(task.node, task.width, task.height)
    .then(
      (png) => {
        const bytes = new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
        parentPort!.postMessage({ id: task.id, png: bytes, threadId } satisfies RenderReply);
      },
      (err: unknown) => parentPort!.postMessage({ id: task.id, error: err instanceof Error ? err.message : String(err) } satisfies RenderReply),
    )
    // On the next turn, once nothing of this render is reachable any more.
    .finally(() => setTimeout(() => collect?.(), 0));
});
