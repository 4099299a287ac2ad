// How to play, per game: a short summary in each rulebook's own terms (turn structure, what
// each kind of move means, scoring, the end). The full rules as implemented, with the
// rulebook's words quoted, are in specs/sa-re.md, specs/sabbat-magica.md and
// specs/nomads-of-arabia.md.

export const RULES = {
  sare: [
    ["Goal", "Be the first to meet your scenario's goal at the end of a Construction Phase: Scribe — " +
      "built on all 12 spaces of your Construction Site with your Pyramid at least in project with a first " +
      "step built; Priest — your two main buildings and at least 3 administrative buildings; Pharaoh — your " +
      "Port, your Pyramid and your 6 administrative buildings."],
    ["Setup", "Each player places the Warehouse, then the Master Builder, on spaces of their Construction " +
      "Site (on the board: click the Warehouse's space, then the Master Builder's)."],
    ["A turn", "Phase 1, projects: starting with the first player, each chooses construction projects " +
      "(launch, move or give up project tiles). Phase 2, the production " +
      "season: the active player reveals Season cards from the shoe onto the Production of the turn; each " +
      "player decides when to stop and lie down, and takes from the general reserve the resource tokens " +
      "matching those in the Production of the turn; Hoshekh (darkness), Horus and revolts are told in the " +
      "log as they happen. Phase 3, construction: pay Wood, Gold and Stone (Jokers and caravans help) to " +
      "complete projects and Pyramid steps."],
    ["Administrative buildings", "Temple, Library, Barracks, Market, Palace and Gardens each give a power " +
      "in the season or at construction; the move buttons name what each one does."],
    ["Winning", "If several players meet the goal, the most built administrative buildings wins, then the " +
      "Pyramid that required the most materials; with the Architect variant the most Pyramid steps. The " +
      "game also ends at the turn limit chosen by the host."],
  ],
  sabbat: [
    ["Goal", "After 6 rounds the highest score wins: victory points plus 5 per chimaera. A tie shares the victory."],
    ["A round", "A. Curse (rounds 2–6): a curse on the cursed square costs 5 VP; the 1H store becomes one " +
      "curse; 2H moves to 1H. Invocation: each player secretly chooses how many available ghosts go on the " +
      "drawbridge (revealed together); the play order follows the ghosts left in the graveyard. Bonus: in " +
      "play order each takes one bonus of the time card. B. Skulduggery: in turn, each player takes as many " +
      "actions as the time card says (4, 3 or 2). C. Stewardship: feed your ghosts with terror (7 less the " +
      "ghosts in the graveyard), score each region where you have a ghost, and turn each set of the 4 " +
      "resources on the approval square into a chimaera."],
    ["Actions", "Move the magician in the Manor (its tiles and mirrors: see the board's notes). Move " +
      "ghosts: a ghost enters a region from the drawbridge by paying its gate fee, or walks to a " +
      "neighbouring region; gardens are entered freely and give their major (position 1) or minor " +
      "(position 2) bonus; a ghost may have to fight the ghosts already there. Pass uses the action."],
    ["Resources", "What you gain goes to the 2H store; at the next round it moves to 1H, and anything still " +
      "in 1H after that becomes a curse."],
  ],
  nomads: [
    ["Goal", "When the Mecca tile is placed on a city the game is over at once: the player with the most " +
      "dinars wins (dinar tiles still held count); equal dinars — the most animals wins."],
    ["A turn", "You may move your nomad one or two spaces at the start of your turn (or stay; from a city " +
      "you may depart to another), hiring traders as you go. Then you may carry out one action."],
    ["Actions", "Catch: on a landscape space, roll all your trader dice and take one animal of each rolled " +
      "kind from the matching landscape box (all blanks: one animal of your choice). Lure: roll, and for " +
      "each animal rolled two of that kind come from the market into the box. Let the desert move: from a " +
      "desert space, take away the card farthest from the pilgrim. Sell: on a city, sell some or all of " +
      "your animals at the market's prices (one sale per turn)."],
    ["The desert and the cities", "When the desert moves, the board card farthest from the pilgrim is " +
      "removed and a new one comes in; nomads on the removed card are lost in the desert: they give up " +
      "their traders, keep two animals and travel with the pilgrim. Yellow city tiles are picked up and " +
      "give one-off powers (Sands of Time is an extra turn, at the end of a turn or between any two " +
      "players' turns); blue tiles cannot be picked up: +1 makes that kind of animal worth one dinar more " +
      "in that city, and Mecca ends the game."],
    ["Markets", "An animal sold is paid the lowest number visible on its market space; animals taken from " +
      "a market uncover higher numbers, animals coming back cover the lowest ones. Refill throws put " +
      "animals into the landscape boxes."],
  ],
};
