/** Text-to-image generation: one picture for a prompt, as the image file's bytes. */
export interface ImageGenerator {
  readonly name: string;
  generate(prompt: string, opts: { size: string }): Promise<Buffer>;
}

/** The generator could not be reached or answered something unusable (the route answers 502). */
export class ImageGenError extends Error {}
