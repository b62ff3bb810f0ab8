import fs from 'node:fs';

/**
 * The local TCP ports of the sockets process `pid` holds open, read from /proc (Linux): its file
 * descriptors name socket inodes, and /proc/net/tcp{,6} give each inode's local address. This is
 * how the fault suite tells which of several processes on one machine sent a request it received.
 */
export function localPortsOf(pid: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    const target = readLink(`/proc/${pid}/fd/${fd}`);
    const inode = /^socket:\[(\d+)\]$/.exec(target ?? '')?.[1];
    if (inode) inodes.add(inode);
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      const [localAddress, inode] = [columns[1], columns[9]];
      if (localAddress && inode && inodes.has(inode)) ports.add(parseInt(localAddress.split(':')[1]!, 16));
    }
  }
  return ports;
}

/** A descriptor closed between listing and reading it is simply not there. */
function readLink(path: string): string | null {
  try {
    return fs.readlinkSync(path);
  } catch {
    return null;
  }
}
