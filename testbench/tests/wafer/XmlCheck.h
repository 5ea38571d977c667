#pragma once
// A tiny XML well-formedness check for the SVG outputs: every tag closes in order, attribute
// values are quoted, entities are the five predefined ones; counts elements by name and class.
// Enough for files we write ourselves; no DTDs, CDATA or comments are expected in them.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace wsc::test {

struct XmlSummary {
    std::map<std::string, int> elements;  // element name -> count
    std::map<std::string, int> classes;   // class attribute -> count
    std::string root;
};

inline XmlSummary checkXml(const std::string& s) {
    XmlSummary out;
    std::vector<std::string> open;
    size_t i = 0;
    const auto fail = [&](const std::string& why) {
        throw std::runtime_error("XML error at byte " + std::to_string(i) + ": " + why);
    };
    while (i < s.size()) {
        if (s[i] != '<') {
            if (s[i] == '&') {
                const size_t e = s.find(';', i);
                const std::string ent = e == std::string::npos ? "" : s.substr(i, e - i + 1);
                if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" &&
                    ent != "&apos;")
                    fail("bad entity");
            }
            if (open.empty() && !isspace(static_cast<unsigned char>(s[i])))
                fail("text outside the root");
            ++i;
            continue;
        }
        if (s.compare(i, 2, "<?") == 0) {
            const size_t e = s.find("?>", i);
            if (e == std::string::npos) fail("unclosed <?");
            i = e + 2;
            continue;
        }
        const bool closing = s[i + 1] == '/';
        size_t j = i + (closing ? 2 : 1);
        const size_t nameEnd = s.find_first_of(" \t\n/>", j);
        if (nameEnd == std::string::npos) fail("unclosed tag");
        const std::string name = s.substr(j, nameEnd - j);
        if (name.empty()) fail("empty tag name");
        j = nameEnd;
        std::string cls;
        while (j < s.size() && s[j] != '>' && !(s[j] == '/' && s[j + 1] == '>')) {
            if (isspace(static_cast<unsigned char>(s[j]))) {
                ++j;
                continue;
            }
            const size_t eq = s.find('=', j);
            if (eq == std::string::npos || closing) fail("bad attribute in <" + name + ">");
            const std::string attr = s.substr(j, eq - j);
            if (eq + 1 >= s.size() || s[eq + 1] != '"') fail("unquoted attribute " + attr);
            const size_t q = s.find('"', eq + 2);
            if (q == std::string::npos) fail("unterminated attribute " + attr);
            const std::string val = s.substr(eq + 2, q - eq - 2);
            if (val.find('<') != std::string::npos) fail("'<' in attribute " + attr);
            if (attr == "class") cls = val;
            j = q + 1;
        }
        if (j >= s.size()) fail("unclosed tag <" + name + ">");
        const bool selfClosing = s[j] == '/';
        i = j + (selfClosing ? 2 : 1);
        if (closing) {
            if (open.empty() || open.back() != name)
                fail("</" + name + "> does not close the open element");
            open.pop_back();
            continue;
        }
        if (open.empty()) {
            if (!out.root.empty()) fail("second root element");
            out.root = name;
        }
        ++out.elements[name];
        if (!cls.empty()) ++out.classes[cls];
        if (!selfClosing) open.push_back(name);
    }
    if (!open.empty()) throw std::runtime_error("unclosed element <" + open.back() + ">");
    return out;
}

}  // namespace wsc::test
