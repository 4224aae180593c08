// Public face of the features module. Nothing outside it needs more than its route table, which
// src/modules/index.ts imports; add here whatever another module comes to need, never deep imports.
export {};
