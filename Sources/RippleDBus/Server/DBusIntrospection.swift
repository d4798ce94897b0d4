/// Builds the introspection XML (`org.freedesktop.DBus.Introspectable.Introspect`) of a node: the standard
/// interfaces the connection answers there, the object's own interfaces, and the child nodes.
enum DBusIntrospection {
    static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
        "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        """

    /// The document for a node: `interfaces` nil for a node without an object (an object manager alone or
    /// a node above exported ones), where only Introspectable, Peer and (for a manager) ObjectManager
    /// are answered.
    static func document(interfaces: [DBusInterface]?, isManager: Bool, children: [String]) -> String {
        var xml = doctype + "\n<node>\n"
        xml += introspectable
        xml += peer
        if interfaces != nil {
            xml += properties
        }
        if isManager {
            xml += objectManager
        }
        for interface in interfaces ?? [] {
            append(interface, to: &xml)
        }
        for child in children {
            xml += "  <node name=\"\(escape(child))\"/>\n"
        }
        xml += "</node>\n"
        return xml
    }

    private static func append(_ interface: DBusInterface, to xml: inout String) {
        xml += "  <interface name=\"\(escape(interface.name))\">\n"
        for method in interface.methods {
            xml += "    <method name=\"\(escape(method.name))\">\n"
            appendArguments(method.inputSignature, names: method.inputNames, direction: "in", to: &xml)
            appendArguments(method.outputSignature, names: method.outputNames, direction: "out", to: &xml)
            xml += "    </method>\n"
        }
        for signal in interface.signals {
            xml += "    <signal name=\"\(escape(signal.name))\">\n"
            appendArguments(signal.signature, names: signal.argumentNames, direction: nil, to: &xml)
            xml += "    </signal>\n"
        }
        for property in interface.properties {
            let head =
                "    <property name=\"\(escape(property.name))\" type=\"\(escape(property.type.signature))\" "
                + "access=\"\(property.access.introspectionName)\""
            if property.changeEmission == .emitsChange {
                xml += head + "/>\n"
            } else {
                xml += head + ">\n"
                xml +=
                    "      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" "
                    + "value=\"\(property.changeEmission.annotationValue)\"/>\n"
                xml += "    </property>\n"
            }
        }
        xml += "  </interface>\n"
    }

    private static func appendArguments(
        _ signature: DBusSignature, names: [String], direction: String?, to xml: inout String
    ) {
        for (index, type) in signature.types.enumerated() {
            xml += "      <arg"
            if index < names.count, !names[index].isEmpty {
                xml += " name=\"\(escape(names[index]))\""
            }
            xml += " type=\"\(escape(type.signature))\""
            if let direction {
                xml += " direction=\"\(direction)\""
            }
            xml += "/>\n"
        }
    }

    /// `text` with the XML special characters escaped, for an attribute value.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }

    private static let introspectable = """
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg name="xml_data" type="s" direction="out"/>
            </method>
          </interface>

        """

    private static let peer = """
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg name="machine_uuid" type="s" direction="out"/>
            </method>
          </interface>

        """

    private static let properties = """
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="out"/>
            </method>
            <method name="GetAll">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="properties" type="a{sv}" direction="out"/>
            </method>
            <method name="Set">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg name="interface_name" type="s"/>
              <arg name="changed_properties" type="a{sv}"/>
              <arg name="invalidated_properties" type="as"/>
            </signal>
          </interface>

        """

    private static let objectManager = """
          <interface name="org.freedesktop.DBus.ObjectManager">
            <method name="GetManagedObjects">
              <arg name="objects" type="a{oa{sa{sv}}}" direction="out"/>
            </method>
            <signal name="InterfacesAdded">
              <arg name="object_path" type="o"/>
              <arg name="interfaces_and_properties" type="a{sa{sv}}"/>
            </signal>
            <signal name="InterfacesRemoved">
              <arg name="object_path" type="o"/>
              <arg name="interfaces" type="as"/>
            </signal>
          </interface>

        """
}
