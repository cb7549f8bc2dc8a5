// A port no process listens on now, from the system. Benchmarks that run side by side on one machine must
// not share their servers' ports: uWS listens with SO_REUSEPORT, so a second server on a fixed port is not
// refused, and the system splits the connections between two benchmarks' servers without a word.
import net from 'node:net'

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}
