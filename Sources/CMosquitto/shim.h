// libmosquitto (Debian libmosquitto-dev): the MQTT client BrokerSignalling drives from the GLib loop.
#include <mosquitto.h>
#include <mqtt_protocol.h>
