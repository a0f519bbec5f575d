// Preload (`node --import ./loopback-only.mjs server.js`): make `server.listen(port[, cb])` bind to
// 127.0.0.1 instead of every interface, for third-party dev servers that take no host option.
import net from 'node:net';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first, second] = args;
  if ((typeof first === 'number' || /^\d+$/.test(String(first))) && typeof second !== 'string') {
    args.splice(1, 0, '127.0.0.1');
  }
  return listen.apply(this, args);
};
