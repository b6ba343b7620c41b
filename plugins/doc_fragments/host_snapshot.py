# -*- coding: utf-8 -*-
# Copyright: perflab.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import (absolute_import, division, print_function)
__metaclass__ = type


class ModuleDocFragment(object):
    """The options host_snapshot and its alias tuning_snapshot share (all but name)."""

    DOCUMENTATION = r'''
options:
  snapshot:
    description:
      - Path of the snapshot file on the host.
      - Default C(/var/lib/perflab/<name>/stock.json).
    type: path
  state:
    description:
      - V(present) records (add-only for O(files) and O(values), set for O(records)); a snapshot
        left with nothing in it is removed.
      - V(restored) puts the recorded files back exactly (a file that did not exist is removed), drops
        every entry that is stock again and the entries named in O(forget), and removes the snapshot
        only when nothing is left. A partial restore keeps what is left and says so (RV(left), RV(msg)).
        Every file is tried, and one that cannot be put back (an immutable file, a read-only file system) stays
        in the snapshot with the reason (RV(unrestored)) and the others are still restored; then the module
        fails naming each (unless O(unrestored_ok), for a caller that has more to put back first).
      - V(absent) deletes the snapshot whatever it holds (and the directories created for it when they
        are empty). V(query) only reads it.
      - V(leftovers) only reads what earlier runs left on the host, every role at once (O(name) and
        O(snapshot) are not used), each snapshot of C(/var/lib/perflab/<role>/) and C(/var/db/perflab/<role>/)
        (tuning, mtu, bonding, firewall) and the firewall switched off (its C(disabled-backend) marker), in
        C(leftovers) (see the module's RETURN); those of roles not in O(expected) in C(unexpected).
    type: str
    choices: [present, restored, absent, query, leftovers]
    default: present
  expected:
    description:
      - With O(state=leftovers), the roles whose snapshot the caller expects and applies itself over
        (a tuned run tuning a host an earlier tuned run left so). The firewall switched off is always unexpected.
    type: list
    elements: str
    choices: [tuning, mtu, bonding, firewall]
    default: []
  files:
    description:
      - With O(state=present), files (or directories) to record before they are changed (content,
        mode, owner, or the fact that the file does not exist).
      - With O(state=restored), the recorded files to restore; all recorded files when empty.
    type: list
    elements: path
    default: []
  values:
    description:
      - With O(state=present), values to record, name to any JSON value (add-only, the first value
        recorded is the stock value), for example an MTU or the active tuned profile.
    type: dict
    default: {}
  records:
    description:
      - With O(state=present), entries of the settable C(records) section, name to any JSON value;
        a later value replaces the earlier one and V(null) removes the entry.
      - For what changes over time, such as the firewall role's record of the rules it added.
    type: dict
    default: {}
  forget:
    description:
      - With O(state=restored), entries the role has put back with its own tools, section
        (V(sysctls), V(ethtool), V(values), V(records), V(files)) to the list of their keys (V(['*']) for the
        whole section). They are dropped from the snapshot.
    type: dict
    default: {}
  unrestored_ok:
    description:
      - With O(state=restored), do not fail when an entry could not be put back (RV(unrestored) says which
        and why), for a role that restores its runtime values after the files and fails at the end itself.
    type: bool
    default: false
  legacy:
    description:
      - Files earlier versions of the roles wrote instead of this snapshot. Each that exists is taken
        into the snapshot as the entry it stands for (an entry already recorded wins) and removed
        once the snapshot holding it is written (with O(state=present), V(restored) or V(absent)).
        With O(state=query) it is only read.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: The old file.
        type: path
        required: true
      section:
        description: The section of the entry it stands for.
        type: str
        required: true
        choices: [sysctls, files, ethtool, values, records]
      key:
        description: The key of that entry (with V(file) and V(none), the path of the file it describes).
        type: str
        required: true
      format:
        description:
          - V(text), its stripped content is the value; V(json), its parsed content.
          - V(file), it is a copy of the file O(legacy[].key) as it was (mode O(legacy[].mode), its own owner).
          - V(none), it is there to say the file O(legacy[].key) did not exist.
        type: str
        default: text
        choices: [text, json, file, none]
      mode:
        description: With O(legacy[].format=file), the mode the file is restored with.
        type: str
        default: '0644'
'''

    # tuning_sysctl and tuning_ethtool (Linux, with a diff): their state and snapshot (module_utils/host/snapshot.py
    # TUNED_STOCK_ARGS)
    TUNED_STOCK = r'''
attributes:
  diff_mode:
    support: full
  platform:
    platforms: Linux
options:
  state:
    description:
      - V(tuned) applies the settings.
      - V(stock) writes back every value recorded in the snapshot.
    type: str
    choices: [tuned, stock]
    default: tuned
  snapshot:
    description: Path of the snapshot file on the host.
    type: path
    default: /var/lib/perflab/tuning/stock.json
'''
