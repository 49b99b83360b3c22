#if canImport(Glibc)
    import Glibc
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Resident memory and CPU time of a process, from `/proc`.
struct ProcessStats {
    let residentBytes: Int
    let cpuSeconds: Double

    init(pid: Int32) throws {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { throw BenchError(description: "no VmRSS for process \(pid)") }
        residentBytes = kilobytes * 1024
        // Fields after the command name: utime and stime are the 12th and 13th, in clock ticks.
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        cpuSeconds = (Double(fields[11])! + Double(fields[12])!) / ticks
    }
}
