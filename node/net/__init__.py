"""The network: frames, handshakes, the LAN's discovery, the MQTT broker's links and a turn-based table's postboxes."""
