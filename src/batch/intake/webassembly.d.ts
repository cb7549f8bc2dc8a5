// The part of the WebAssembly JavaScript API that multipart-scanner.ts uses. Node has it built in, but
// neither the ES library nor @types/node 20 declares it (the DOM library would, with much else).

declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array)
  }
  class Instance {
    constructor(module: Module, imports: Record<string, Record<string, unknown>>)
    readonly exports: Record<string, unknown>
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number })
    readonly buffer: ArrayBuffer
    grow(pages: number): number
  }
}
