import Foundation
@testable import LeakCheck
import Testing

@Test func probeNotificationCenter() {
    let stored = TypeMetadata.storedFields(of: type(of: NotificationCenter.default))
    if let f = stored?.first {
        let bytes = (0..<f.typeName.length).map { f.typeName.start.load(fromByteOffset: $0, as: UInt8.self) }
        print("BYTES", bytes)
        let target = f.typeName.start + 1 + Int(f.typeName.start.load(fromByteOffset: 1, as: Int32.self))
        print("TARGET", (0..<48).map { String(format: "%02x", target.load(fromByteOffset: $0, as: UInt8.self)) }.joined(separator: " "))
    }
}
