"""Host counters: nstat, netstat -s, /proc/net, ip -s link, ifconfig, ethtool -S, conntrack."""
