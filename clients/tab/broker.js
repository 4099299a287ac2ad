// The tab's MQTT connections (issue 32), for the Python in the worker: mqtt.js (loaded by
// worker.js from the bundle, checked against the manifest) over the browser's WebSocket to a
// `ws://` or `wss://` broker, MQTT 5. Python registers this as the JS module `_caravan_broker`
// (clients/tab/py/tab_broker.py is its one user). Each message received is handed to Python's
// `onMessage(topic, bytes)` at once, on this worker's thread (never the page's); Python queues
// it (bounded). Every function answers a Promise that rejects with one line naming the broker.
//
// A connection opened as a postbox (a turn-based seat's persistent inbox, tab_postbox.py) holds
// the PUBACK of each QoS 1 message until Python says it took it (`ack`): mqtt.js hands it over
// with its packet number, QoS, DUP flag and connection number, onMessage(topic, bytes, mid, qos,
// dup, connection). mqtt.js handles incoming packets one at a time: the next one (another
// envelope, a PUBACK of ours, a PINGRESP) waits until `handleMessage`'s callback was called,
// and that callback sends the PUBACK. So the callback is called at once, with an error, which
// mqtt.js takes as "do not acknowledge" and goes on to the next packet; `ack` later sends the
// PUBACK itself (mqtt.js's `_sendPacket`: it has no public call for it, checked for mqtt 5.16).
// An ack for an earlier connection's message is not sent (its number means nothing on this
// one; the broker sends the message again), nor one while offline (mqtt.js would queue it for
// the next connection).

export function brokerModule(mqtt) {
  const clients = new Map();
  let next = 0;

  function client(id) {
    const found = clients.get(id);
    if (!found) throw new Error(`no broker connection ${id} (it was closed)`);
    return found;
  }

  // Connect; resolves with the connection's id once the broker accepted it (CONNACK), rejects
  // on a refusal or when nothing answered within `timeoutMs` (the client is then ended).
  // (A login in the URL, ws://USER:PASSWORD@HOST, goes to mqtt.js; messages show the URL without it.)
  // `maxPacket` > 0 opens a postbox (see above), which takes no packet over that many bytes and
  // subscribes again itself after a reconnect to a broker that lost its session (mqtt.js would
  // too, but without saying when the broker granted it; and it would then skip Python's call).
  function connect(url, clientId, cleanStart, sessionExpiry, timeoutMs, onMessage, onEvent, maxPacket = 0) {
    const shown = withoutLogin(url);
    if (!/^wss?:\/\//.test(url)) return Promise.reject(new Error(`${shown}: a tab reaches a broker by ws:// or wss:// only`));
    const properties = sessionExpiry > 0 ? { sessionExpiryInterval: sessionExpiry } : {};
    if (maxPacket > 0) properties.maximumPacketSize = maxPacket;
    const options = {
      protocolVersion: 5, clientId, clean: cleanStart, reconnectPeriod: 1000, connectTimeout: timeoutMs,
      keepalive: 15, forceNativeWebSocket: true, resubscribe: !(maxPacket > 0), properties,
    };
    return new Promise((resolve, reject) => {
      let settled = false;
      const id = ++next;
      const c = mqtt.connect(url, options);
      c.connection = 0;        // CONNACKs so far: counted as it comes, before the messages after it
      c.on("packetreceive", (packet) => { if (packet.cmd === "connack") c.connection += 1; });
      if (maxPacket > 0) c.handleMessage = (packet, callback) => callback(packet.qos > 0 ? HELD : undefined);
      const fail = (why) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        c.end(true);
        reject(new Error(`the broker ${shown} ${why}`));
      };
      const timer = setTimeout(() => fail(`did not answer within ${(timeoutMs / 1000).toFixed(0)} s`), timeoutMs);
      c.on("connect", (ack) => {
        onEvent("connect", ack && ack.sessionPresent ? "session present" : "new session");
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clients.set(id, c);
        resolve(id);
      });
      c.on("error", (error) => {
        const why = String(error && error.message || error);
        if (!settled && error && error.code) fail(`refused this tab: ${why}`);
        else onEvent("error", why);
      });
      c.on("close", () => onEvent("close", ""));
      c.on("offline", () => onEvent("offline", ""));
      c.on("message", (topic, payload, packet) => {
        const bytes = new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
        if (maxPacket > 0) onMessage(topic, bytes, packet.messageId || 0, packet.qos, !!packet.dup, c.connection);
        else onMessage(topic, bytes);
      });
    });
  }

  const HELD = new Error("held until the postbox takes it");

  // A postbox's PUBACK for message `mid` of connection `connection`: sent (true) only on that
  // connection, still up, and for a QoS 1 message (a PUBACK of a QoS 0 message's number 0
  // would be a protocol error: the broker would cut the connection).
  function ack(id, connection, mid, qos) {
    const c = client(id);
    if (qos !== 1 || connection !== c.connection || !c.connected) return false;
    c._sendPacket({ cmd: "puback", messageId: mid, reasonCode: 0 });
    return true;
  }

  // A connection's number: its CONNACKs so far (a postbox's parcels carry theirs).
  function connection(id) {
    return client(id).connection;
  }

  function withoutLogin(url) {
    try {
      const parsed = new URL(url);
      if (!parsed.username && !parsed.password) return url;
      parsed.username = parsed.password = "";
      return parsed.href;
    } catch {
      return "the broker URL";
    }
  }

  function subscribe(id, topic, qos) {
    return client(id).subscribeAsync(topic, { qos }).then((granted) => {
      const code = granted && granted[0] ? granted[0].qos : 128;
      if (code >= 128) throw new Error(`the broker refused the subscription to ${topic} (reason ${code})`);
      return code;
    });
  }

  function unsubscribe(id, topic) {
    return client(id).unsubscribeAsync(topic).then(() => true);
  }

  // QoS 0 resolves once written, QoS 1 once the broker acknowledged it. `retain` leaves it on
  // the topic for later subscribers, for `expiry` s when > 0 (MQTT 5's Message Expiry Interval).
  function publish(id, topic, payload, qos, retain = false, expiry = 0) {
    const options = { qos, retain };
    if (expiry > 0) options.properties = { messageExpiryInterval: expiry };
    return client(id).publishAsync(topic, payload, options).then(() => true);
  }

  // Close: a connected client first lets its QoS 1 messages be acknowledged (at most
  // END_GRACE_MS); one that lost its broker stops at once (it would wait for acks forever).
  const END_GRACE_MS = 3000;
  function end(id) {
    const c = clients.get(id);
    clients.delete(id);
    if (!c) return Promise.resolve();
    if (!c.connected) return c.endAsync(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (c.stream) c.stream.destroy();
        resolve();
      }, END_GRACE_MS);
      c.end(false, {}, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  return { connect, subscribe, unsubscribe, publish, ack, connection, end };
}
