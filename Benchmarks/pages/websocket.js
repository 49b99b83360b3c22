/*
 * A browser WebSocket realtime client for Hearth's `/.ws` (protocol v5), framing its messages as
 * Firebase's browser SDK does: JSON text frames; a message longer than 16,384 characters goes as a
 * frame holding just the count of frames, then that many chunks (incoming messages are
 * reassembled the same way). `window.ws` is its API, shaped like `window.lp` of long_poll.js:
 *
 *   ws.open(name, hearthURL, namespace)  starts a connection
 *   ws.send(name, message)               sends one message, returns how many frames it took
 *   ws.messages(name, from)              the messages received so far, in order
 *   ws.subscribe(name, callback)         calls callback(message) for each message from now on
 *   ws.state(name)                       connected?, session id, frames, close reason, …
 *   ws.close(name)                       closes the WebSocket
 *   ws.errors()                          errors seen by the connections
 */
(function () {
  "use strict";

  var MAX_FRAME_CHARACTERS = 16384;

  var connections = {};
  var errors = [];

  function Connection(name, hearthURL, namespace) {
    var self = this;
    this.name = name;
    this.state = "connecting";
    this.sessionId = null;
    this.messages = [];
    this.subscribers = [];
    this.frames = null;
    this.totalFrames = 0;
    this.framesSent = 0;
    this.framesReceived = 0;
    this.closeReason = null;
    var url = hearthURL.replace(/\/+$/, "").replace(/^http/, "ws") + "/.ws?v=5&ns=" + encodeURIComponent(namespace);
    this.socket = new WebSocket(url);
    this.socket.onmessage = function (event) {
      self.onFrame(event.data);
    };
    this.socket.onerror = function () {
      errors.push(name + ": WebSocket error");
    };
    this.socket.onclose = function (event) {
      if (self.state !== "closed") {
        self.state = "closed";
        self.closeReason = "the WebSocket closed (code " + event.code + ")";
      }
    };
  }

  Connection.prototype.onFrame = function (data) {
    this.framesReceived += 1;
    if (this.frames !== null) {
      this.frames.push(data);
      if (this.frames.length === this.totalFrames) {
        var whole = this.frames.join("");
        this.frames = null;
        this.deliver(whole);
      }
      return;
    }
    if (data.length <= 6) {
      var count = Number(data);
      if (!isNaN(count)) {
        if (count > 0) {
          this.frames = [];
          this.totalFrames = count;
        }
        return;
      }
    }
    this.deliver(data);
  };

  Connection.prototype.deliver = function (text) {
    var message;
    try {
      message = JSON.parse(text);
    } catch (error) {
      errors.push(this.name + ": unparsable message " + text.slice(0, 160));
      return;
    }
    this.messages.push(message);
    var control = message && message.t === "c" ? message.d : null;
    if (this.state === "connecting" && control && control.t === "h") {
      this.state = "connected";
      this.sessionId = control.d.s;
    }
    for (var i = 0; i < this.subscribers.length; i++) this.subscribers[i](message);
  };

  Connection.prototype.send = function (message) {
    var text = JSON.stringify(message);
    var count = Math.max(1, Math.ceil(text.length / MAX_FRAME_CHARACTERS));
    if (count > 1) this.socket.send(String(count));
    for (var i = 0; i < count; i++) {
      this.socket.send(text.slice(i * MAX_FRAME_CHARACTERS, (i + 1) * MAX_FRAME_CHARACTERS));
    }
    this.framesSent += count + (count > 1 ? 1 : 0);
    return count;
  };

  Connection.prototype.shutdown = function (reason) {
    if (this.state === "closed") return;
    this.state = "closed";
    this.closeReason = reason;
    this.socket.close();
  };

  Connection.prototype.snapshot = function () {
    return {
      name: this.name,
      state: this.state,
      connected: this.state === "connected",
      sessionId: this.sessionId,
      messageCount: this.messages.length,
      framesSent: this.framesSent,
      framesReceived: this.framesReceived,
      bufferedAmount: this.socket.bufferedAmount,
      closeReason: this.closeReason,
    };
  };

  function connection(name) {
    if (!connections[name]) throw new Error("no connection named " + name);
    return connections[name];
  }

  window.ws = {
    open: function (name, hearthURL, namespace) {
      if (connections[name]) throw new Error("a connection named " + name + " exists");
      connections[name] = new Connection(name, hearthURL, namespace);
    },
    send: function (name, message) {
      return connection(name).send(message);
    },
    messages: function (name, from) {
      return connection(name).messages.slice(from || 0);
    },
    subscribe: function (name, callback) {
      connection(name).subscribers.push(callback);
    },
    state: function (name) {
      return connection(name).snapshot();
    },
    close: function (name) {
      connection(name).shutdown("closed by the page");
    },
    errors: function () {
      return errors.slice();
    },
  };
})();
