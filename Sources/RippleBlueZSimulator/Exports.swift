// The Bluetooth vocabulary (BluetoothUUID, BluetoothAddress, CharacteristicProperties, BlueZ's names) comes
// with `import RippleBlueZSimulator`; the client exports the same module, so a file importing both sees each
// type once.
@_exported import RippleBluetooth
