// What the tests share with the bench (processes, namespace hosts, the NAT topology, relay
// servers; XCTest-free, in HostSupport): every test that imports BatonTestSupport sees it.
@_exported import HostSupport
