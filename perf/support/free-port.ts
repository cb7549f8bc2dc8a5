// Ports no process listens on now, from the system. Benchmarks that run side by side on one machine must
// not share their servers' ports: uWS listens with SO_REUSEPORT, so a second server on a fixed port is not
// refused, and the system splits the connections between two benchmarks' servers without a word.
import net from 'node:net'

/** `count` distinct ports: each held until all are found, then let go for the benchmark's servers. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = []
  try {
    const ports: number[] = []
    for (let i = 0; i < count; i++) {
      const server = net.createServer()
      servers.push(server)
      ports.push(
        await new Promise<number>((resolve, reject) => {
          server.once('error', reject)
          server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port))
        }),
      )
    }
    return ports
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
  }
}
