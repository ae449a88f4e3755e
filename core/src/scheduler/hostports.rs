//! Host ports in use on a node (`framework.HostPortInfo`).

use std::collections::BTreeMap;

use crate::model::PodSpec;

const DEFAULT_BIND_ALL_HOST_IP: &str = "0.0.0.0";

/// One wanted or used host port, with upstream's defaults applied.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HostPort {
    pub ip: String,
    pub protocol: String,
    pub port: i32,
}

impl HostPort {
    /// Empty IP means all addresses; empty protocol means TCP.
    pub fn new(ip: &str, protocol: &str, port: i32) -> Self {
        Self {
            ip: if ip.is_empty() { DEFAULT_BIND_ALL_HOST_IP.into() } else { ip.into() },
            protocol: if protocol.is_empty() { "TCP".into() } else { protocol.into() },
            port,
        }
    }
}

impl std::fmt::Display for HostPort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{} on {}", self.port, self.protocol, self.ip)
    }
}

/// Used (protocol, port) pairs per IP.
#[derive(Debug, Clone, Default)]
pub struct HostPortInfo {
    by_ip: BTreeMap<String, Vec<(String, i32)>>,
}

impl HostPortInfo {
    pub fn add(&mut self, p: &HostPort) {
        if p.port <= 0 {
            return;
        }
        self.by_ip.entry(p.ip.clone()).or_default().push((p.protocol.clone(), p.port));
    }

    /// Forgets one use of `p` (a pod taken off the node).
    pub fn remove(&mut self, p: &HostPort) {
        if let Some(used) = self.by_ip.get_mut(&p.ip) {
            if let Some(k) = used.iter().position(|(proto, port)| *proto == p.protocol && *port == p.port) {
                used.remove(k);
            }
            if used.is_empty() {
                self.by_ip.remove(&p.ip);
            }
        }
    }

    /// `CheckConflict`: `0.0.0.0` conflicts with the same protocol/port on any IP; a specific IP
    /// conflicts with itself and with `0.0.0.0`. Ports <= 0 never conflict.
    pub fn conflicts(&self, p: &HostPort) -> bool {
        if p.port <= 0 {
            return false;
        }
        let used_on = |ip: &str| {
            self.by_ip.get(ip).is_some_and(|v| v.iter().any(|(proto, port)| *proto == p.protocol && *port == p.port))
        };
        if p.ip == DEFAULT_BIND_ALL_HOST_IP {
            self.by_ip.keys().any(|ip| used_on(ip))
        } else {
            used_on(&p.ip) || used_on(DEFAULT_BIND_ALL_HOST_IP)
        }
    }
}

/// `util.GetHostPorts`: host ports of containers and of restartable init containers.
pub fn wanted_host_ports(spec: &PodSpec) -> Vec<HostPort> {
    let sidecars = spec.init_containers.iter().filter(|c| c.is_restartable_init());
    spec.containers
        .iter()
        .chain(sidecars)
        .flat_map(|c| c.ports.iter())
        .filter(|p| p.host_port > 0)
        .map(|p| HostPort::new(&p.host_ip, &p.protocol, p.host_port))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflict_rows() {
        let mut used = HostPortInfo::default();
        used.add(&HostPort::new("127.0.0.1", "TCP", 80));
        used.add(&HostPort::new("", "UDP", 53));
        // (wanted, conflict, why)
        let rows = [
            (HostPort::new("127.0.0.1", "", 80), true, "same ip, TCP by default"),
            (HostPort::new("", "TCP", 80), true, "all addresses overlaps a specific one"),
            (HostPort::new("10.0.0.1", "TCP", 80), false, "another specific ip"),
            (HostPort::new("10.0.0.1", "UDP", 53), true, "0.0.0.0 is in use"),
            (HostPort::new("127.0.0.1", "UDP", 80), false, "protocols differ"),
            (HostPort::new("", "TCP", 0), false, "port 0 never conflicts"),
        ];
        for (p, expected, why) in rows {
            assert_eq!(used.conflicts(&p), expected, "{why}");
        }
    }
}
